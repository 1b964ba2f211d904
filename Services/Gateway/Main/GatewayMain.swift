import Gateway

@main
struct GatewayMain {
    static func main() async throws {
        print(GatewayService.name)
    }
}
