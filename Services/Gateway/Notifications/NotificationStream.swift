import Contracts
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceKit
import ServiceLifecycle

/// `GET /v1/notifications/stream`: the caller's notifications as Server-Sent Events (WHATWG HTML §9.2).
///
/// The response (`200`, `Content-Type: text/event-stream`, `Cache-Control: no-store`, `X-Accel-Buffering: no`) opens
/// with `retry: 5000`, then sends the buffered notifications after the request's `Last-Event-ID` header (or
/// `lastEventId` query parameter, for clients that cannot set headers) — all buffered ones when it is absent or unknown;
/// clients dedupe by id — then new ones as they arrive. Each message is
///
///     id: <notificationId>
///     event: <kind>
///     data: <the UserNotified JSON, one line>
///
/// and an idle stream gets a `: keep-alive` comment every ``NotificationHubConfiguration/keepAlive``. The stream ends
/// when the client disconnects (noticed at once, through the request's inbound side), when the server shuts down
/// gracefully, or when the hub closes it (too many streams for the user, a client too slow to read).
public struct NotificationStream: Sendable {
    /// The hub streams are served from.
    public let hub: NotificationHub
    /// Interval of keep-alive comments.
    public let keepAlive: Duration

    /// Creates the stream responder; `keepAlive` defaults to the hub's configuration.
    public init(hub: NotificationHub, keepAlive: Duration? = nil) {
        self.hub = hub
        self.keepAlive = keepAlive ?? hub.configuration.keepAlive
    }

    /// The streaming response for `userID` (the verified access token's subject).
    ///
    /// - Throws: `Problem` 400 when the request has a body (an SSE request has none, and the disconnect detection
    ///   needs the request's inbound stream untouched), 401 when `userID` is not a UUID.
    public func response(to request: Request, userID: String) throws -> Response {
        guard request.headers[.transferEncoding] == nil, (request.headers[.contentLength].flatMap { Int($0) } ?? 0) == 0 else {
            throw Problem.badRequest("A notification stream request has no body.", code: "unexpected-body")
        }
        guard let user = UUID(uuidString: userID) else { throw Problem.unauthorized() }
        let lastEventID = (request.headers[.lastEventID] ?? request.uri.queryParameters.get("lastEventId"))
            .flatMap { UUID(uuidString: $0.trimmingCharacters(in: .whitespaces)) }
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.xAccelBuffering] = "no"
        let hub = hub, keepAlive = keepAlive
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            let subscription = hub.subscribe(userID: user, after: lastEventID)
            do {
                try await request.body.consumeWithCancellationOnInboundClose { _ in
                    try await Self.write(subscription, to: &writer, keepAlive: keepAlive)
                }
            } catch {
                // The client went away (inbound closed, or a write failed): there is nothing left to write to.
                subscription.close()
                return
            }
            subscription.close()
            try await writer.finish(nil)
        })
    }

    private static func write(_ subscription: NotificationSubscription, to writer: inout any ResponseBodyWriter,
                              keepAlive: Duration) async throws {
        try await writer.write(ByteBuffer(string: "retry: 5000\n\n"))
        for notification in subscription.backlog {
            try await writer.write(ByteBuffer(string: try ServerSentEvent.message(for: notification)))
        }
        try await withGracefulShutdownHandler {
            try await withThrowingTaskGroup(of: Void.self) { ticks in
                ticks.addTask {
                    while !Task.isCancelled {
                        try await Task.sleep(for: keepAlive)
                        subscription.keepAlive()
                    }
                }
                for await event in subscription.events {
                    switch event {
                    case .notification(let notification):
                        try await writer.write(ByteBuffer(string: try ServerSentEvent.message(for: notification)))
                    case .keepAlive:
                        try await writer.write(ByteBuffer(string: ServerSentEvent.keepAlive))
                    }
                }
                ticks.cancelAll()
            }
        } onGracefulShutdown: {
            subscription.close()
        }
    }
}

/// The text of Server-Sent Events messages.
enum ServerSentEvent {
    /// A comment line that keeps proxies and clients from timing the connection out.
    static let keepAlive = ": keep-alive\n\n"

    /// `id`, `event` and one `data` line (compact JSON has no raw line breaks; `kind` and the id cannot hold any).
    static func message(for notification: UserNotified) throws -> String {
        let json = String(decoding: try ContractJSON.encode(notification), as: UTF8.self)
        let kind = notification.kind.rawValue.filter { $0 != "\n" && $0 != "\r" }
        return "id: \(notification.notificationId.uuidString.lowercased())\nevent: \(kind)\ndata: \(json)\n\n"
    }
}

extension HTTPField.Name {
    /// `Last-Event-ID`: the id of the last message a reconnecting SSE client saw.
    static let lastEventID = HTTPField.Name("Last-Event-ID")!
    /// `X-Accel-Buffering: no` keeps nginx-style proxies from buffering the stream.
    static let xAccelBuffering = HTTPField.Name("X-Accel-Buffering")!
}

/// Mounts `GET path` (default `/v1/notifications/stream`) on `router`: the Server-Sent Events stream of the user
/// `userID` returns for the request. The gateway verifies the access token before (401 otherwise) and passes its
/// subject; this function adds no authentication of its own.
///
/// ```swift
/// addNotificationStreamRoute(to: router, hub: hub) { _, context in try context.requireIdentity().userID }
/// ```
public func addNotificationStreamRoute<Router: RouterMethods>(
    to router: Router, path: RouterPath = "/v1/notifications/stream", hub: NotificationHub,
    userID: @escaping @Sendable (Request, Router.Context) async throws -> String
) {
    let stream = NotificationStream(hub: hub)
    router.get(path) { request, context -> Response in
        try stream.response(to: request, userID: try await userID(request, context))
    }
}
