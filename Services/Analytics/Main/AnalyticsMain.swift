import Analytics
import ArgumentParser

/// The `analytics` executable; everything lives in the `Analytics` library.
@main
enum AnalyticsMain {
    static func main() async {
        await AnalyticsCommandLine.main()
    }
}
