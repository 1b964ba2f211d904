import ArgumentParser
import Navigation

/// The `navigation` executable; everything lives in the `Navigation` library.
@main
enum NavigationMain: AsyncMainProtocol {
    typealias Command = NavigationCommandLine
}
