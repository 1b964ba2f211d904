/// Notifications for the push stream, read from `waypoint.notifications`.
public enum GatewayNotificationsModule {}
