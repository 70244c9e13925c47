//===- MetricsSchema.h - The version of metrics.json ------------*- C++ -*-===//
//
// metrics.json is the interface between the profiler that writes it
// (lib/Profile) and the passes that read it back (--accel-attach-metrics,
// lib/Transforms): its schema version lives here, below both.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SUPPORT_METRICSSCHEMA_H
#define ACCEL_SUPPORT_METRICSSCHEMA_H

namespace accel {

/// Version of the metrics.json schema (docs/metrics.md): written as its
/// "schema_version"; --accel-attach-metrics refuses another.
constexpr int kMetricsSchemaVersion = 5;

} // namespace accel

#endif // ACCEL_SUPPORT_METRICSSCHEMA_H
