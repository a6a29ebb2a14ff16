// What the native OTLP/JSON trace decoder produces: the packed batch's columns (see
// daemon/store/packed-batch.ts), with resources and scopes as they appear in the request
// (the JavaScript side hashes and merges them).
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace obs {

/** One `resourceSpans[]` entry's resource. */
struct ResourceEntry {
  std::string attributes;  // JSON object text
  uint32_t dropped_attributes_count = 0;
  std::optional<std::string> schema_url;
};

/** One `scopeSpans[]` entry's instrumentation scope. */
struct ScopeEntry {
  std::string name;
  std::optional<std::string> version;
  std::string attributes;
  uint32_t dropped_attributes_count = 0;
  std::optional<std::string> schema_url;
};

/** Field slots per span in `numbers`, in the order of SPAN_FIELDS in packed-batch.ts. */
enum SpanSlot : int {
  kTraceId,        // `strings` index
  kSpanId,         // `texts` index
  kParentSpanId,   // `strings` index or -1
  kTraceState,     // `texts` index or -1
  kFlags,
  kName,           // `strings` index
  kKind,
  kStartNs,        // unused: the times are in `times`
  kEndNs,          // unused
  kStatusCode,
  kStatusMessage,  // `texts` index or -1
  kAttributes,     // `texts` index
  kEvents,         // `texts` index or -1
  kLinks,          // `texts` index or -1
  kDroppedAttributes,
  kDroppedEvents,
  kDroppedLinks,
  kResource,       // index into `resources` (entries, not yet merged)
  kScope,          // index into `scopes`
  kSpanSlots
};

/** Texts that repeat across spans, each stored once; records refer to them by number. */
class StringTable {
 public:
  int32_t intern(std::string_view text) {
    auto found = index_.find(text);
    if (found != index_.end()) return found->second;
    const auto at = static_cast<int32_t>(strings_.size());
    const std::string &stored = strings_.emplace_back(text);
    index_.emplace(std::string_view(stored), at);
    return at;
  }
  const std::deque<std::string> &strings() const { return strings_; }

 private:
  std::deque<std::string> strings_;  // a deque never moves its elements, so the views stay valid
  std::unordered_map<std::string_view, int32_t> index_;
};

struct TraceBatch {
  std::vector<ResourceEntry> resources;
  std::vector<ScopeEntry> scopes;
  StringTable strings;
  std::vector<std::string> texts;
  std::vector<double> numbers;  // kSpanSlots per span
  std::vector<uint64_t> times;  // start and end nanoseconds per span
  std::vector<int32_t> indexed;  // per span: entry count, then key and value `strings` indexes
  size_t span_count = 0;
};

/**
 * Thrown when a request needs the JavaScript decoder: anything invalid (so the error message is
 * the one the JavaScript decoder gives) and the rare valid shapes this decoder leaves to it.
 */
struct NeedsJavaScriptDecoder {};

/** Decodes an ExportTraceServiceRequest in OTLP/JSON. Throws NeedsJavaScriptDecoder. */
void decode_trace_request(const uint8_t *body, size_t length, TraceBatch &out);

}  // namespace obs
