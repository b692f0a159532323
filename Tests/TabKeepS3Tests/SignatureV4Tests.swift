import Foundation
import Testing

@testable import TabKeepS3

/// AWS's published SigV4 examples: the test suite's `get-vanilla` and
/// `get-vanilla-query-order-key-case` (credentials AKIDEXAMPLE, service "service", 2015-08-30) and
/// the S3 documentation's "GET Object" example (a ranged GET of examplebucket/test.txt).
@Suite struct SignatureV4Tests {
    let suiteCredentials = S3Credentials(
        accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
    let suiteHeaders = ["Host": "example.amazonaws.com", "X-Amz-Date": "20150830T123600Z"]

    @Test func getVanillaMatchesTheTestSuite() {
        let signer = SignatureV4(region: "us-east-1", service: "service")
        let authorization = signer.authorization(
            method: "GET", path: "/", query: [], headers: suiteHeaders,
            payloadHash: SignatureV4.emptyPayloadHash,
            date: "20150830T123600Z", credentials: suiteCredentials)
        #expect(
            authorization
                == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
                + "SignedHeaders=host;x-amz-date, "
                + "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31")
    }

    @Test func queryParametersAreSortedBeforeSigning() {
        let signer = SignatureV4(region: "us-east-1", service: "service")
        let signature = signer.signature(
            method: "GET", path: "/", query: [("Param2", "value2"), ("Param1", "value1")],
            headers: suiteHeaders,
            payloadHash: SignatureV4.emptyPayloadHash, date: "20150830T123600Z",
            secretAccessKey: suiteCredentials.secretAccessKey)
        #expect(signature == "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500")
    }

    @Test func s3GetObjectExampleMatchesTheDocumentation() {
        let signer = SignatureV4(region: "us-east-1", service: "s3")
        let headers = [
            "Host": "examplebucket.s3.amazonaws.com", "Range": "bytes=0-9",
            "x-amz-content-sha256": SignatureV4.emptyPayloadHash, "x-amz-date": "20130524T000000Z",
        ]
        let canonical = signer.canonicalRequest(
            method: "GET", path: "/test.txt", query: [], headers: headers,
            payloadHash: SignatureV4.emptyPayloadHash)
        #expect(
            signer.stringToSign(canonicalRequest: canonical, date: "20130524T000000Z")
                == "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
                + "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972")
        let authorization = signer.authorization(
            method: "GET", path: "/test.txt", query: [], headers: headers,
            payloadHash: SignatureV4.emptyPayloadHash,
            date: "20130524T000000Z",
            credentials: S3Credentials(
                accessKeyID: "AKIAIOSFODNN7EXAMPLE",
                secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"))
        #expect(
            authorization
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    @Test func emptyPayloadHashIsSHA256OfNothing() {
        #expect(
            SignatureV4.emptyPayloadHash == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        )
    }

    @Test func uriEncodingKeepsOnlyUnreservedCharacters() {
        #expect(SignatureV4.uriEncode("a b/c~d_e.f-g+h=") == "a%20b%2Fc~d_e.f-g%2Bh%3D")
        #expect(SignatureV4.uriEncode("users/alice/ü", keepSlash: true) == "users/alice/%C3%BC")
    }

    @Test func credentialsNeverShowTheirSecret() {
        let credentials = S3Credentials(
            accessKeyID: "AKIA1", secretAccessKey: "s3cr3t-value", sessionToken: "tok3n")
        for text in ["\(credentials)", String(reflecting: credentials), "\([credentials])"] {
            #expect(!text.contains("s3cr3t-value") && !text.contains("tok3n"), "\(text)")
        }
    }

    @Test func amzDateIsUTCBasicFormat() {
        #expect(S3Client.amzDate(.init(timeIntervalSince1970: 1_440_938_160)) == "20150830T123600Z")
    }
}
