import GatewayNotifications
import ServiceKit

extension GatewayRoutes {
    /// Mounts the push stream `GET /v1/notifications/stream` (Server-Sent Events of the verified caller's notifications,
    /// docs/notifications.md) and makes readiness wait for the hub's first catch-up. Run `hub` as one of the gateway's
    /// background services.
    public func addPushStream(hub: NotificationHub) {
        readiness.register("consumer.waypoint.notifications", check: hub.readinessCheck())
        addNotificationStreamRoute(to: authenticated("/v1/notifications"), path: "/stream", hub: hub) { _, context in
            try context.requireIdentity().subject
        }
    }
}
