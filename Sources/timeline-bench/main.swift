import TimelineKit
print("timeline-bench: not yet")
