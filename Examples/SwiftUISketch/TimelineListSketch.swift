#if canImport(SwiftUI)
import SwiftUI
#endif
import TimelineKit
