import ArgumentParser
import TourManagement

/// The `tour-management` executable; everything lives in the `TourManagement` library.
@main
enum TourManagementMain: AsyncMainProtocol {
    typealias Command = TourManagementCommandLine
}
