import Testing

@Test func DeployTestsPlaceholder() {}
