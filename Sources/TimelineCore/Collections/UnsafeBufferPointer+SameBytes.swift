extension UnsafeBufferPointer<UInt8> {
    /// Whether the two buffers hold the same bytes, compared with `memcmpBytes` (the C
    /// library's `memcmp`): `elementsEqual` compares a byte at a time (with callgrind, comparing
    /// the titles of a retitled event's old and new snapshots that way cost about 200
    /// instructions a command).
    /// - Complexity: O(*n*) for *n* bytes.
    @inlinable
    package func hasSameBytes(as other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard count == other.count else { return false }
        guard count > 0, let mine = baseAddress, let theirs = other.baseAddress else { return true }
        return memcmpBytes(mine, theirs, count) == 0
    }
}
