import Foundation
import Hummingbird
import WireProtocol

/// An answer of the HTTP API other than success: its status and the JSON body docs/http.md
/// promises, `{"error": "…"}` with `"parameter"` for a bad query parameter (keys sorted, a line
/// break after). Thrown from a route or a middleware; Hummingbird's router turns it into the
/// response, as it does `HTTPError`, whose body (`{"error": {"message": …}}`) is not the one the
/// API documents.
struct HTTPAPIError: HTTPResponseError, Sendable {
    /// The body.
    struct Body: Codable, Sendable, Equatable {
        var error: String
        var parameter: String?
    }

    var status: HTTPResponse.Status
    var headers: HTTPFields
    var body: Body

    init(_ status: HTTPResponse.Status, _ message: String, parameter: String? = nil, headers: HTTPFields = [:]) {
        self.status = status
        self.headers = headers
        self.body = Body(error: message, parameter: parameter)
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = self.headers
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try JSONLine.encode(body))))
    }
}

/// JSON for the HTTP side: `WireCoding`'s encoder (keys sorted, RFC 3339 times), one value per body.
enum JSONLine {
    /// `value` as JSON followed by a line break; a value that cannot be encoded (a non-finite
    /// number) is a `500`.
    static func encode(_ value: some Encodable) throws(HTTPAPIError) -> [UInt8] {
        do {
            var bytes = Array(try WireCoding.makeEncoder().encode(value))
            bytes.append(UInt8(ascii: "\n"))
            return bytes
        } catch {
            throw HTTPAPIError(.internalServerError, "cannot encode the answer: \(error)")
        }
    }

    /// A response with `value` as its JSON body.
    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws(HTTPAPIError) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: try encode(value))))
    }
}
