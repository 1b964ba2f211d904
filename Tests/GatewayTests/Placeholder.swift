import Testing

@Test func GatewayTestsPlaceholder() {}
