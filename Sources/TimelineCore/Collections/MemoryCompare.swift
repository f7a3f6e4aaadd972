import SystemShim

/// Compares `n` bytes at `a` and `b` with the C library's `memcmp`: negative, zero or
/// positive as the first differing byte of `a` is less, neither or greater. The one byte
/// comparison of the project (event ids in `EventID.compareUTF8`, titles and date texts through
/// `UnsafeBufferPointer.hasSameBytes(as:)`).
@usableFromInline
func memcmpBytes(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Int {
    Int(memcmp(a, b, n))
}
