import ArgumentParser
import Auth

/// The `auth` executable; everything lives in the `Auth` library (see `AuthCommandLine`).
@main
enum AuthMain: AsyncMainProtocol {
    typealias Command = AuthCommandLine
}
