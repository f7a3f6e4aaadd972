// Front ends import TimelineKit alone: the domain types (commands, date values, facts)
// and the projection types (rows, views, change sets) come with it.
@_exported import TimelineCore
@_exported import TimelineProjections
