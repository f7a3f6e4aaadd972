/// A buffer that several threads read at once, inside `DispatchQueue.concurrentPerform`:
/// the bytes of a log or a checkpoint, or the records a fold reads.
///
/// `@unchecked Sendable` is safe as it is used: the buffer is only read, never written,
/// and `DispatchQueue.concurrentPerform` returns only after every thread is done with it,
/// before the caller's buffer can be freed.
package struct SharedBuffer<Buffer: Collection>: @unchecked Sendable {
    /// The buffer, valid for as long as the caller's.
    package let buffer: Buffer

    /// Shares `buffer` with the threads of one `DispatchQueue.concurrentPerform`.
    package init(_ buffer: Buffer) { self.buffer = buffer }
}

/// Bytes read by several threads at once.
package typealias SharedBytes = SharedBuffer<UnsafeRawBufferPointer>

extension SharedBuffer where Buffer == UnsafeRawBufferPointer {
    /// Shares `bytes` with the threads of one `DispatchQueue.concurrentPerform`.
    package init(bytes: UnsafeRawBufferPointer) { self.init(bytes) }

    /// The bytes.
    package var bytes: UnsafeRawBufferPointer { buffer }
}
