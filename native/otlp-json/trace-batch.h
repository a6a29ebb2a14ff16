// What the native OTLP/JSON trace decoder produces: the packed batch's columns (see
// daemon/store/packed-batch.ts), with resources and scopes as they appear in the request
// (the JavaScript side hashes and merges them).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
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

/** Field slots per span in `numbers`, in the order of SPAN_LAYOUT in packed-batch.ts. */
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

/**
 * Strings of one batch, end to end in a buffer the batch shares, each named by its bounds:
 * no allocation per string, and JavaScript gets them as slices of one string.
 */
class StringList {
 public:
  explicit StringList(std::string &bytes) : bytes_(bytes) {}

  /** Appends `text` (which must not point into the shared buffer); returns its number. */
  int32_t add(std::string_view text) {
    bounds_.push_back(static_cast<int32_t>(bytes_.size()));
    bytes_.append(text);
    bounds_.push_back(static_cast<int32_t>(bytes_.size()));
    return static_cast<int32_t>(bounds_.size() / 2 - 1);
  }

  std::string_view at(int32_t i) const {
    return std::string_view(bytes_).substr(bounds_[2 * i], bounds_[2 * i + 1] - bounds_[2 * i]);
  }

  size_t size() const { return bounds_.size() / 2; }
  /** [start, end) in the shared buffer, per string. */
  const std::vector<int32_t> &bounds() const { return bounds_; }

 private:
  std::string &bytes_;
  std::vector<int32_t> bounds_;
};

/** Texts that repeat across spans, each stored once; records refer to them by number. */
class StringTable {
 public:
  explicit StringTable(std::string &bytes) : list_(bytes), slots_(1024, -1) {}

  int32_t intern(std::string_view text) {
    const size_t mask = slots_.size() - 1;
    for (size_t slot = std::hash<std::string_view>{}(text) & mask;; slot = (slot + 1) & mask) {
      const int32_t at = slots_[slot];
      if (at < 0) {
        slots_[slot] = list_.add(text);
        if (2 * list_.size() > slots_.size()) grow();
        return static_cast<int32_t>(list_.size() - 1);
      }
      if (list_.at(at) == text) return at;
    }
  }

  const StringList &list() const { return list_; }

 private:
  StringList list_;
  std::vector<int32_t> slots_;  // open addressing, linear probing; -1 is empty

  void grow() {
    std::vector<int32_t> slots(2 * slots_.size(), -1);
    const size_t mask = slots.size() - 1;
    for (int32_t at = 0; at < static_cast<int32_t>(list_.size()); at++) {
      size_t slot = std::hash<std::string_view>{}(list_.at(at)) & mask;
      while (slots[slot] >= 0) slot = (slot + 1) & mask;
      slots[slot] = at;
    }
    slots_.swap(slots);
  }
};

struct TraceBatch {
  std::vector<ResourceEntry> resources;
  std::vector<ScopeEntry> scopes;
  /** Every string below, end to end (declared first: the lists refer to it). */
  std::string bytes;
  StringTable strings{bytes};
  StringList texts{bytes};
  std::vector<double> numbers;  // kSpanSlots per span
  std::vector<uint64_t> times;  // start and end nanoseconds per span
  std::vector<int32_t> indexed;  // per span: entry count, then key and value `strings` indexes
  size_t span_count = 0;

  TraceBatch() = default;
  TraceBatch(const TraceBatch &) = delete;
  TraceBatch &operator=(const TraceBatch &) = delete;
};

/**
 * Thrown when a request needs the JavaScript decoder: anything invalid (so the error message is
 * the one the JavaScript decoder gives) and the rare valid shapes this decoder leaves to it.
 */
struct NeedsJavaScriptDecoder {};

/** Decodes an ExportTraceServiceRequest in OTLP/JSON. Throws NeedsJavaScriptDecoder. */
void decode_trace_request(const uint8_t *body, size_t length, TraceBatch &out);

}  // namespace obs
