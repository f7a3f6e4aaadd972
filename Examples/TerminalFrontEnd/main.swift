import TimelineKit
print("timeline-live: not yet")
