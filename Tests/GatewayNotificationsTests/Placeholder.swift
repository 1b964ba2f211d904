import Testing

@Test func GatewayNotificationsTestsPlaceholder() {}
