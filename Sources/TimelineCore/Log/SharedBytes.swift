/// Bytes read by several threads at once, inside `DispatchQueue.concurrentPerform`.
///
/// `@unchecked Sendable` is safe as it is used: the bytes are only read, never written,
/// and `DispatchQueue.concurrentPerform` returns only after every thread is done with
/// them, before the caller's buffer can be freed.
package struct SharedBytes: @unchecked Sendable {
    package let bytes: UnsafeRawBufferPointer

    package init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }
}
