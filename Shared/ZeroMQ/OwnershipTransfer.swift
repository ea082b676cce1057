/// Moves a non-thread-safe value to the one thread that will own it from then on.
///
/// `@unchecked Sendable` is safe because the creating thread gives the value up when it builds
/// the transfer (the initialiser takes it as `sending`) and only the receiving thread reads it;
/// starting a thread is a full memory barrier, which is what libzmq requires to migrate a socket.
struct OwnershipTransfer<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: sending Value) { self.value = value }
}
