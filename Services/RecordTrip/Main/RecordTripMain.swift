import ArgumentParser
import RecordTrip

/// The `record-trip` executable; everything lives in the `RecordTrip` library.
@main
enum RecordTripMain: AsyncMainProtocol {
    typealias Command = RecordTripCommandLine
}
