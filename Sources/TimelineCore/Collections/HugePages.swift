import SystemShim

/// Asks the kernel to back the large arrays of a big store with huge pages.
///
/// A million events' hash table spans a few thousand 4 KiB pages, far more than a
/// processor's TLB holds, so on small pages nearly every lookup also walks the page
/// tables. Where the kernel gives huge pages only to memory that asks for them (Linux
/// with transparent huge pages set to `madvise`), this asks; elsewhere it does nothing.
package enum HugePages {
    /// The size of a huge page: 2 MiB.
    package static let size = 2 << 20

    /// Advises the kernel that the whole huge pages inside `buffer` are worth backing
    /// with huge pages. Call it before the buffer is first written: pages already
    /// touched keep their small pages.
    package static func advise(_ buffer: UnsafeMutableRawBufferPointer) {
        #if os(Linux) && (canImport(Glibc) || canImport(Musl))
        guard let base = buffer.baseAddress,
              let blocks = wholePages(in: UInt(bitPattern: base)..<(UInt(bitPattern: base) + UInt(buffer.count))),
              let start = UnsafeMutableRawPointer(bitPattern: blocks.lowerBound)
        else { return }
        // Advice only: a kernel without huge pages refuses it, and nothing changes.
        _ = madvise(start, Int(blocks.count), MADV_HUGEPAGE)
        #endif
    }

    /// The whole huge pages within `addresses` (aligned to ``size``), or `nil` when it
    /// holds fewer than two: one page's worth is not worth a huge page that may go half
    /// used.
    package static func wholePages(in addresses: Range<UInt>) -> Range<UInt>? {
        let size = UInt(Self.size)
        let start = (addresses.lowerBound &+ size &- 1) & ~(size &- 1)
        let end = addresses.upperBound & ~(size &- 1)
        guard start < end, end - start >= 2 * size else { return nil }
        return start..<end
    }
}
