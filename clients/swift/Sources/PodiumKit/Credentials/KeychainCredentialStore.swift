#if canImport(Security)
    import Foundation
    import Security

    /// Keeps credentials in the Keychain as generic passwords (service ``service``, the account's
    /// name as the Keychain account), available after the device's first unlock and never synced
    /// to other devices. The default on Apple platforms.
    public struct KeychainCredentialStore: PodiumCredentialStore {
        public let service: String
        /// A Keychain access group shared with your other apps; nil for the app's own.
        public let accessGroup: String?

        public init(service: String = "org.podium.credentials", accessGroup: String? = nil) {
            self.service = service
            self.accessGroup = accessGroup
        }

        private func query(account: String) -> [String: Any] {
            var query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: service,
                kSecAttrAccount as String: account,
            ]
            if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
            return query
        }

        public func load(account: String) throws -> PodiumStoredCredential? {
            var query = query(account: account)
            query[kSecReturnData as String] = true
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            var result: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &result)
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess, let data = result as? Data else { throw Self.error(status) }
            return try JSONDecoder().decode(PodiumStoredCredential.self, from: data)
        }

        public func save(_ credential: PodiumStoredCredential, account: String) throws {
            let data = try JSONEncoder().encode(credential)
            let attributes: [String: Any] = [
                kSecValueData as String: data,
                kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
            ]
            var status = SecItemUpdate(query(account: account) as CFDictionary, attributes as CFDictionary)
            if status == errSecItemNotFound {
                let item = query(account: account).merging(attributes) { _, new in new }
                status = SecItemAdd(item as CFDictionary, nil)
            }
            guard status == errSecSuccess else { throw Self.error(status) }
        }

        public func delete(account: String) throws {
            let status = SecItemDelete(query(account: account) as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else { throw Self.error(status) }
        }

        private static func error(_ status: OSStatus) -> NSError {
            NSError(domain: NSOSStatusErrorDomain, code: Int(status))
        }
    }
#endif
