extension UnsafeBufferPointer<UInt8> {
    /// Whether the two buffers hold the same bytes, compared with `memcmpBytes` (the C
    /// library's `memcmp`), many at a time, where `elementsEqual` compares a byte at a time.
    /// - Complexity: O(*n*) for *n* bytes.
    @inlinable
    package func hasSameBytes(as other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard count == other.count else { return false }
        guard count > 0, let mine = baseAddress, let theirs = other.baseAddress else { return true }
        return memcmpBytes(mine, theirs, count) == 0
    }
}
