extension Polyline {
    /// A copy with only the coordinates needed to stay within `tolerance` metres of this line,
    /// by the Douglas–Peucker algorithm.
    ///
    /// The first and last coordinates are always kept; a coordinate is dropped when it lies no more
    /// than `tolerance` metres from the segment between the kept coordinates around it. Distances
    /// are to the segment, not its infinite extension, so a trace that doubles back (a cyclist
    /// turning round) keeps its turning point. The work list is an explicit stack rather than
    /// recursion: a pathological trace of a million fixes needs a million levels, which would
    /// overflow a thread's stack.
    /// - Parameter tolerance: Maximum deviation in metres; a negative or NaN tolerance keeps everything.
    public func simplified(tolerance: Double) -> Polyline {
        let count = coordinates.count
        guard count > 2, tolerance >= 0 else { return self }
        var keep = [Bool](repeating: false, count: count)
        keep[0] = true
        keep[count - 1] = true
        var pending = [(first: 0, last: count - 1)]
        while let (first, last) = pending.popLast() {
            guard last - first > 1 else { continue }
            let chord = Segment(from: coordinates[first], to: coordinates[last])
            var farthestIndex = first
            var farthestDistance = -1.0
            for index in (first + 1)..<last {
                let distance = chord.distance(to: coordinates[index])
                if distance > farthestDistance {
                    farthestIndex = index
                    farthestDistance = distance
                }
            }
            if farthestDistance > tolerance {
                keep[farthestIndex] = true
                pending.append((first, farthestIndex))
                pending.append((farthestIndex, last))
            }
        }
        return Polyline(zip(coordinates, keep).compactMap { coordinate, kept in kept ? coordinate : nil })
    }
}
