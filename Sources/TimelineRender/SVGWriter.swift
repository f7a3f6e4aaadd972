/// Writes a laid-out picture as an SVG document.
///
/// Colours are attributes of the light scheme, so that a viewer without CSS shows them;
/// the document's style sheet gives the dark scheme under `prefers-color-scheme: dark`.
/// Class names start with `tl-` so that a page holding the picture keeps its own styles.
enum SVGWriter {
    static let fontFamily = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', 'Noto Sans', "
        + "'Liberation Sans', Arial, sans-serif"

    static func svg(_ layout: PictureLayout) -> String {
        var out = ""
        out.reserveCapacity(4_096 + layout.items.count * 320 + layout.columns.count * 160)
        let light = Palette.lightScheme
        let width = number(layout.width), height = number(layout.height)
        out += "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"tl-picture\" width=\"\(width)\" height=\"\(height)\""
        out += " viewBox=\"0 0 \(width) \(height)\" role=\"img\" aria-labelledby=\"tl-title\""
        out += " font-family=\"\(fontFamily)\">\n"
        out += "<title id=\"tl-title\">\(escaped(layout.input.title.directionIsolated + " · " + layout.subtitle))</title>\n"
        out += styleSheet
        out += "<rect class=\"tl-bg\" width=\"\(width)\" height=\"\(height)\" fill=\"\(light.background)\"/>\n"

        // The header.
        let margin = number(PictureLayout.margin)
        out += "<text class=\"tl-text\" x=\"\(margin)\" y=\"\(number(layout.titleBaseline))\""
        out += " font-size=\"\(number(PictureLayout.titleSize))\" font-weight=\"600\" fill=\"\(light.text)\">"
        out += "\(escaped(layout.title.directionIsolated))</text>\n"
        out += "<text class=\"tl-muted\" x=\"\(margin)\" y=\"\(number(layout.subtitleBaseline))\""
        out += " font-size=\"\(number(PictureLayout.subtitleSize))\" fill=\"\(light.muted)\">\(escaped(layout.subtitle))</text>\n"
        if let note = layout.note {
            out += "<text class=\"tl-note tl-now-text\" x=\"\(margin)\" y=\"\(number(layout.noteBaseline))\""
            out += " font-size=\"\(number(PictureLayout.subtitleSize))\" fill=\"\(light.now)\">\(escaped(note))</text>\n"
        }

        writeAxis(layout, into: &out)
        for lane in layout.lanes { writeLane(lane, layout, into: &out) }
        writeNow(layout, into: &out)
        out += "</svg>\n"
        return out
    }

    // MARK: Axis and now

    private static func writeAxis(_ layout: PictureLayout, into out: inout String) {
        let light = Palette.lightScheme
        let top = number(layout.plotTop), bottom = number(layout.plotBottom)
        out += "<g class=\"tl-axis\">\n"
        if !layout.axis.minorTicks.isEmpty {
            out += "<path class=\"tl-minor\" stroke=\"\(light.minorGrid)\" d=\""
            out += layout.axis.minorTicks.map { "M\(number($0)) \(top)V\(bottom)" }.joined()
            out += "\"/>\n"
        }
        out += "<path class=\"tl-grid\" stroke=\"\(light.grid)\" d=\""
        out += layout.axis.ticks.map { "M\(number($0.x)) \(top)V\(bottom)" }.joined()
        out += "\"/>\n"
        for label in layout.axisLabels {
            out += "<text class=\"tl-muted\" x=\"\(number(label.x))\" y=\"\(number(label.baseline))\""
            out += " font-size=\"\(number(PictureLayout.axisSize))\" fill=\"\(light.muted)\""
            out += " font-variant-numeric=\"tabular-nums\">\(escaped(label.text))</text>\n"
        }
        out += "</g>\n"
    }

    private static func writeNow(_ layout: PictureLayout, into out: inout String) {
        guard let x = layout.nowX, let label = layout.nowLabel else { return }
        let light = Palette.lightScheme
        out += "<g class=\"tl-now-line\">"
        out += "<path class=\"tl-now\" stroke=\"\(light.now)\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\""
        out += " d=\"M\(number(x)) \(number(layout.plotTop))V\(number(layout.plotBottom))\"/>"
        out += "<text class=\"tl-now-text\" x=\"\(number(label.x))\" y=\"\(number(label.baseline))\" text-anchor=\"middle\""
        out += " font-size=\"\(number(PictureLayout.axisSize))\" font-weight=\"600\" fill=\"\(light.now)\">"
        out += "\(escaped(label.text))</text></g>\n"
    }

    // MARK: Lanes

    private static func writeLane(_ box: LaneBox, _ layout: PictureLayout, into out: inout String) {
        let light = Palette.lightScheme
        let lane = layout.input.lanes[box.lane]
        let colour = Palette.index(lane.colour)
        out += "<g class=\"tl-lane\" data-timeline=\"\(escaped(lane.id))\">\n"
        out += "<path class=\"tl-sep\" stroke=\"\(light.separator)\""
        out += " d=\"M\(number(PictureLayout.margin)) \(number(box.top))H\(number(layout.width - PictureLayout.margin))\"/>\n"
        out += "<text x=\"\(number(PictureLayout.margin))\" y=\"\(number(box.headingBaseline))\""
        out += " font-size=\"\(number(PictureLayout.headingSize))\">"
        out += "<tspan class=\"tl-c\(colour)\" font-weight=\"600\" fill=\"\(Palette.light[colour])\">\(escaped(layout.laneNames[box.lane].directionIsolated))</tspan>"
        out += "<tspan class=\"tl-muted\" dx=\"8\" font-size=\"\(number(PictureLayout.axisSize))\" fill=\"\(light.muted)\">"
        out += "\(PictureLayout.counted(box.count, "event"))</tspan></text>\n"
        for item in layout.items where item.lane == box.lane { writeItem(item, colour: colour, layout, into: &out) }
        for column in layout.columns where column.lane == box.lane {
            out += "<rect class=\"tl-c\(colour)\" x=\"\(number(column.x0))\" y=\"\(number(column.top))\""
            out += " width=\"\(number(column.x1 - column.x0))\" height=\"\(number(column.bottom - column.top))\""
            out += " fill=\"\(Palette.light[colour])\"><title>\(escaped(column.period)): "
            out += "\(PictureLayout.counted(column.count, "event"))</title></rect>\n"
        }
        out += "</g>\n"
    }

    private static func writeItem(_ placed: PlacedItem, colour: Int, _ layout: PictureLayout, into out: inout String) {
        let light = Palette.lightScheme
        let item = layout.input.items[placed.item]
        let fill = Palette.light[colour]
        let y = placed.y, height = PictureLayout.barHeight
        out += "<g class=\"tl-item\" data-event=\"\(escaped(item.event))\"><title>\(escaped(item.tooltip))</title>"
        switch placed.shape {
        case .mark:
            let r = PictureLayout.markRadius, cy = y + height / 2
            out += "<path class=\"tl-c\(colour) tl-mark\" fill=\"\(fill)\" stroke=\"\(light.markOutline)\" stroke-width=\"1.5\""
            out += " d=\"M\(number(placed.x0)) \(number(cy - r))l\(number(r)) \(number(r))l-\(number(r)) \(number(r))"
            out += "l-\(number(r)) -\(number(r))z\"/>"
        case .bar(let open):
            let barWidth = placed.x1 - placed.x0
            var paint = "fill=\"\(fill)\""
            if open {
                // Solid until the last stretch before now, then fading: the range goes on.
                let id = "tl-fade-\(placed.item)"
                let fade = min(40, barWidth * 0.6)
                let solid = barWidth > 0 ? max(0, 1 - fade / barWidth) : 0
                out += "<linearGradient id=\"\(id)\"><stop offset=\"\(number(solid, places: 3))\" class=\"tl-s\(colour)\""
                out += " stop-color=\"\(fill)\"/><stop offset=\"1\" class=\"tl-s\(colour)\" stop-color=\"\(fill)\""
                out += " stop-opacity=\"0.3\"/></linearGradient>"
                paint = "fill=\"url(#\(id))\""
            }
            out += "<rect class=\"tl-bar\(open ? "" : " tl-c\(colour)")\" x=\"\(number(placed.x0))\" y=\"\(number(y))\""
            out += " width=\"\(number(barWidth))\" height=\"\(number(height))\" rx=\"4\" \(paint)/>"
            if open {
                let tip = placed.x1 + PictureLayout.openTail
                out += "<path class=\"tl-arrow tl-k\(colour)\" fill=\"none\" stroke=\"\(fill)\" stroke-width=\"2\""
                out += " stroke-linecap=\"round\" stroke-linejoin=\"round\" d=\"M\(number(placed.x1 + 2)) \(number(y + 4))"
                out += "L\(number(tip)) \(number(y + height / 2))L\(number(placed.x1 + 2)) \(number(y + height - 4))\"/>"
            }
        }
        if let label = placed.label {
            let inside = label.placement == .inside
            out += "<text class=\"\(inside ? "tl-on" : "tl-text")\" x=\"\(number(label.x))\" y=\"\(number(label.baseline))\""
            out += " font-size=\"\(number(PictureLayout.labelSize))\""
            if inside { out += " font-weight=\"500\"" }
            if label.placement == .before { out += " text-anchor=\"end\"" }
            out += " fill=\"\(inside ? light.onBar : light.text)\">\(escaped(label.text.directionIsolated))</text>"
        }
        out += "</g>\n"
    }

    // MARK: Style

    /// The dark scheme, and a highlight of the item under the pointer.
    static let styleSheet: String = {
        let dark = Palette.darkScheme
        var css = "<style>\n"
        css += ".tl-item:hover .tl-bar, .tl-item:hover .tl-mark { filter: brightness(1.12) saturate(1.1); }\n"
        css += ".tl-item:hover text { font-weight: 600; }\n"
        css += "@media (prefers-color-scheme: dark) {\n"
        css += "  .tl-bg { fill: \(dark.background); }\n"
        css += "  .tl-text { fill: \(dark.text); }\n"
        css += "  .tl-muted { fill: \(dark.muted); }\n"
        css += "  .tl-grid { stroke: \(dark.grid); }\n"
        css += "  .tl-minor { stroke: \(dark.minorGrid); }\n"
        css += "  .tl-sep { stroke: \(dark.separator); }\n"
        css += "  .tl-now { stroke: \(dark.now); }\n"
        css += "  .tl-now-text { fill: \(dark.now); }\n"
        css += "  .tl-on { fill: \(dark.onBar); }\n"
        css += "  .tl-mark { stroke: \(dark.markOutline); }\n"
        for (index, colour) in dark.lanes.enumerated() {
            css += "  .tl-c\(index) { fill: \(colour); } .tl-s\(index) { stop-color: \(colour); }"
            css += " .tl-k\(index) { stroke: \(colour); }\n"
        }
        css += "}\n</style>\n"
        return css
    }()

    // MARK: Text

    /// `12`, `12.5`, `-3.2`: a coordinate to `places` decimal places, without trailing zeros.
    static func number(_ value: Double, places: Int = 1) -> String {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (value * scale).rounded()
        guard scaled.isFinite, abs(scaled) < 1e15 else { return "0" }
        let units = Int64(scaled)
        let magnitude = units.magnitude
        let divisor = UInt64(scale)
        var text = String(magnitude / divisor)
        let fraction = magnitude % divisor
        if fraction > 0 {
            var digits = String(fraction)
            digits = String(repeating: "0", count: places - digits.count) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        return (units < 0 ? "-" : "") + text
    }

    /// Text for XML content and attribute values: markup characters as references, and
    /// characters XML 1.0 does not allow (most control characters, U+FFFE, U+FFFF) as U+FFFD.
    static func escaped(_ text: String) -> String {
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x26: result += "&amp;"
            case 0x3C: result += "&lt;"
            case 0x3E: result += "&gt;"
            case 0x22: result += "&quot;"
            case 0x27: result += "&#39;"
            case 0x09, 0x0A, 0x0D, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF:
                result.unicodeScalars.append(scalar)
            default:
                result.unicodeScalars.append("\u{FFFD}")
            }
        }
        return result
    }
}
