#if canImport(CryptoKit)
    import CryptoKit
#else
    import CCrypto
#endif

/// SHA-256 and HMAC-SHA256 for request signing: CryptoKit on Apple platforms, libcrypto
/// elsewhere. Nothing here is hand-written cryptography; it only moves bytes in and out.
enum Hashing {
    /// The SHA-256 digest of `bytes`.
    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        #if canImport(CryptoKit)
            return Array(SHA256.hash(data: bytes))
        #else
            var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
            var length: UInt32 = 0
            let status = bytes.withUnsafeBufferPointer { input in
                digest.withUnsafeMutableBufferPointer { output in
                    EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, EVP_sha256(), nil)
                }
            }
            // EVP_Digest fails only when the allocator does; nothing sensible can go on without it.
            precondition(status == 1 && length == 32, "libcrypto's EVP_Digest(SHA-256) failed")
            return Array(digest[0..<32])
        #endif
    }

    /// HMAC-SHA256 of `message` under `key`.
    static func hmacSHA256(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        #if canImport(CryptoKit)
            let code = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key))
            return Array(code)
        #else
            var mac = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
            var length: UInt32 = 0
            let result = key.withUnsafeBufferPointer { keyBytes in
                message.withUnsafeBufferPointer { input in
                    mac.withUnsafeMutableBufferPointer { output in
                        HMAC(
                            EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count), input.baseAddress,
                            input.count, output.baseAddress, &length)
                    }
                }
            }
            precondition(result != nil && length == 32, "libcrypto's HMAC(SHA-256) failed")
            return Array(mac[0..<32])
        #endif
    }

    /// Lowercase hexadecimal, two digits a byte.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
