import Gateway

/// The `gateway` executable; everything lives in the `Gateway` library.
@main
enum GatewayMain {
    static func main() async {
        await GatewayCommandLine.main()
    }
}
