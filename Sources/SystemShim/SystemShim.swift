// The platform's C library (Glibc, Musl or Darwin), re-exported: a file that calls it
// imports this module instead of choosing among the three itself.
#if canImport(Glibc)
@_exported import Glibc
#elseif canImport(Musl)
@_exported import Musl
#elseif canImport(Darwin)
@_exported import Darwin
#endif
