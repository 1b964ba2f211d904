import ArgumentParser
import PathReview

/// The `path-review` executable; everything lives in the `PathReview` library.
@main
enum PathReviewMain: AsyncMainProtocol {
    typealias Command = PathReviewCommandLine
}
