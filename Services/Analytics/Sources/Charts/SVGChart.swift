import Foundation

/// Server-rendered charts: standalone SVG 1.1 documents with a title, both axes with tick labels, axis titles and a
/// legend, readable in any browser or `<img>` tag without a client library. Text is XML-escaped; sizes are fixed
/// (720 × 360) and scale through `viewBox`.
enum SVGChart {
    struct Series {
        var name: String
        var values: [Double]
        var color: String
    }

    static let width = 720.0
    static let height = 360.0
    static let margin = (left: 78.0, right: 20.0, top: 48.0, bottom: 64.0)

    /// A bar chart of one series over `categories`.
    static func bars(title: String, categories: [String], values: [Double], yAxisTitle: String, xAxisTitle: String,
                     formatTick: (Double) -> String) -> String {
        let scale = YScale(maximum: values.max() ?? 0)
        var svg = header(title: title)
        svg += axes(categories: categories, scale: scale, yAxisTitle: yAxisTitle, xAxisTitle: xAxisTitle, formatTick: formatTick, centred: true)
        let slot = plotWidth / Double(max(categories.count, 1))
        let barWidth = max(1, slot * 0.7)
        svg += "<g class=\"series\" fill=\"#2f6fdf\">\n"
        for (index, value) in values.enumerated() {
            let barHeight = scale.height(of: value, plotHeight: plotHeight)
            let x = margin.left + slot * Double(index) + (slot - barWidth) / 2
            let y = margin.top + plotHeight - barHeight
            svg += "<rect x=\"\(f(x))\" y=\"\(f(y))\" width=\"\(f(barWidth))\" height=\"\(f(barHeight))\">"
            svg += "<title>\(escape(categories[index])): \(escape(formatTick(value)))</title></rect>\n"
        }
        svg += "</g>\n"
        return svg + "</svg>\n"
    }

    /// A line chart of one or more series over `categories`, with a legend.
    static func lines(title: String, categories: [String], series: [Series], yAxisTitle: String, xAxisTitle: String) -> String {
        let scale = YScale(maximum: series.flatMap(\.values).max() ?? 0)
        var svg = header(title: title)
        svg += axes(categories: categories, scale: scale, yAxisTitle: yAxisTitle, xAxisTitle: xAxisTitle,
                    formatTick: { String(Int($0.rounded())) }, centred: false)
        let step = categories.count > 1 ? plotWidth / Double(categories.count - 1) : 0
        for line in series {
            let points = line.values.enumerated().map { index, value in
                (margin.left + step * Double(index), margin.top + plotHeight - scale.height(of: value, plotHeight: plotHeight))
            }
            svg += "<g class=\"series\"><title>\(escape(line.name))</title>\n"
            svg += "<polyline fill=\"none\" stroke=\"\(line.color)\" stroke-width=\"2\" points=\""
            svg += points.map { "\(f($0.0)),\(f($0.1))" }.joined(separator: " ") + "\"/>\n"
            if points.count <= 60 {
                for (index, point) in points.enumerated() {
                    svg += "<circle cx=\"\(f(point.0))\" cy=\"\(f(point.1))\" r=\"2.5\" fill=\"\(line.color)\">"
                    svg += "<title>\(escape(categories[index])): \(Int(line.values[index]))</title></circle>\n"
                }
            }
            svg += "</g>\n"
        }
        // Legend, top right.
        var x = width - margin.right - 10
        for line in series.reversed() {
            let textWidth = Double(line.name.count) * 6.5
            x -= textWidth + 26
            svg += "<g class=\"legend\"><rect x=\"\(f(x))\" y=\"18\" width=\"14\" height=\"4\" fill=\"\(line.color)\"/>"
            svg += "<text x=\"\(f(x + 18))\" y=\"24\" font-size=\"12\">\(escape(line.name))</text></g>\n"
        }
        return svg + "</svg>\n"
    }

    // MARK: Pieces

    static var plotWidth: Double { width - margin.left - margin.right }
    static var plotHeight: Double { height - margin.top - margin.bottom }

    static func header(title: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="\(Int(width))" height="\(Int(height))" \
        viewBox="0 0 \(Int(width)) \(Int(height))" role="img" aria-label="\(escape(title))" \
        font-family="-apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif">
        <title>\(escape(title))</title>
        <rect width="100%" height="100%" fill="#ffffff"/>
        <text class="chart-title" x="\(f(margin.left))" y="24" font-size="15" font-weight="600">\(escape(title))</text>

        """
    }

    static func axes(categories: [String], scale: YScale, yAxisTitle: String, xAxisTitle: String, formatTick: (Double) -> String,
                     centred: Bool) -> String {
        let bottom = margin.top + plotHeight
        var svg = "<g class=\"axis y-axis\" font-size=\"11\" fill=\"#333333\">\n"
        for tick in scale.ticks {
            let y = bottom - scale.height(of: tick, plotHeight: plotHeight)
            svg += "<line x1=\"\(f(margin.left))\" y1=\"\(f(y))\" x2=\"\(f(width - margin.right))\" y2=\"\(f(y))\" stroke=\"#e5e5e5\"/>"
            svg += "<text x=\"\(f(margin.left - 6))\" y=\"\(f(y + 4))\" text-anchor=\"end\">\(escape(formatTick(tick)))</text>\n"
        }
        svg += "<line x1=\"\(f(margin.left))\" y1=\"\(f(margin.top))\" x2=\"\(f(margin.left))\" y2=\"\(f(bottom))\" stroke=\"#333333\"/>\n"
        svg += "<text class=\"axis-title\" transform=\"translate(16 \(f(margin.top + plotHeight / 2))) rotate(-90)\" "
        svg += "text-anchor=\"middle\" font-size=\"12\">\(escape(yAxisTitle))</text>\n</g>\n"
        svg += "<g class=\"axis x-axis\" font-size=\"11\" fill=\"#333333\">\n"
        svg += "<line x1=\"\(f(margin.left))\" y1=\"\(f(bottom))\" x2=\"\(f(width - margin.right))\" y2=\"\(f(bottom))\" stroke=\"#333333\"/>\n"
        // At most ~12 labels, evenly thinned, the last one always shown.
        let every = max(1, Int((Double(categories.count) / 12).rounded(.up)))
        let slot = plotWidth / Double(max(categories.count, 1))
        let step = categories.count > 1 ? plotWidth / Double(categories.count - 1) : 0
        for (index, label) in categories.enumerated()
        where index % every == 0 || (index == categories.count - 1 && index % every >= (every + 1) / 2) {
            let x = centred ? margin.left + slot * (Double(index) + 0.5) : margin.left + step * Double(index)
            svg += "<line x1=\"\(f(x))\" y1=\"\(f(bottom))\" x2=\"\(f(x))\" y2=\"\(f(bottom + 4))\" stroke=\"#333333\"/>"
            svg += "<text x=\"\(f(x))\" y=\"\(f(bottom + 17))\" text-anchor=\"middle\">\(escape(label))</text>\n"
        }
        svg += "<text class=\"axis-title\" x=\"\(f(margin.left + plotWidth / 2))\" y=\"\(f(height - 12))\" text-anchor=\"middle\" "
        svg += "font-size=\"12\">\(escape(xAxisTitle))</text>\n</g>\n"
        return svg
    }

    /// A y scale from 0 to a "nice" maximum (1, 2 or 5 × 10ⁿ per step), with 4–5 ticks.
    struct YScale {
        let maximum: Double
        let ticks: [Double]

        init(maximum value: Double) {
            let target = value > 0 ? value : 1
            let rough = target / 4
            let magnitude = pow(10, (log10(rough)).rounded(.down))
            let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= rough } ?? magnitude * 10
            let top = (target / step).rounded(.up) * step
            maximum = top
            ticks = stride(from: 0, through: top + step / 2, by: step).map { $0 }
        }

        func height(of value: Double, plotHeight: Double) -> Double {
            max(0, value) / maximum * plotHeight
        }
    }

    static func f(_ value: Double) -> String {
        String(format: "%.1f", value)
    }

    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                // Control characters are not allowed in XML 1.0.
                if let scalar = character.unicodeScalars.first, character.unicodeScalars.count == 1, scalar.value < 0x20,
                   scalar != "\n", scalar != "\t" { continue }
                out.append(character)
            }
        }
        return out
    }

    /// A tick or bar value with as few decimals as it needs, at most 2: `0`, `2.5`, `0.25`, `1200`.
    static func decimal(_ value: Double) -> String {
        let hundredths = (value * 100).rounded()
        if hundredths.truncatingRemainder(dividingBy: 100) == 0 { return String(Int64(hundredths / 100)) }
        if hundredths.truncatingRemainder(dividingBy: 10) == 0 { return String(format: "%.1f", hundredths / 100) }
        return String(format: "%.2f", hundredths / 100)
    }

    /// Minor units as major units with the currency's decimals, e.g. `12.50` for 1250 EUR cents, `1500` for JPY.
    static func major(_ minor: Double, exponent: Int) -> String {
        guard exponent > 0 else { return String(Int(minor.rounded())) }
        return String(format: "%.\(exponent)f", minor / pow(10, Double(exponent)))
    }
}
