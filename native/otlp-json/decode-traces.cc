// OTLP/JSON ExportTraceServiceRequest to packed span columns, mirroring daemon/otlp/decode-traces.ts
// and its helpers value for value. It takes the common shapes only: on anything invalid or
// unusual it gives up (NeedsJavaScriptDecoder) and the JavaScript decoder decodes the request,
// so every error message, and every rare case, has one implementation.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>

#include "json-text.h"
#include "simdjson.h"
#include "trace-batch.h"

namespace obs {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;
namespace text = json_text;

// How deeply arrays and kvlists may nest inside an attribute value (MAX_DEPTH in any-value.ts).
constexpr int kMaxDepth = 32;
constexpr int64_t kMaxSafeInteger = 9007199254740991;  // 2^53 - 1
constexpr uint64_t kMaxStoredNs = 9223372036854775807ULL;  // 2^63 - 1, MAX_STORED_NS

[[noreturn]] void give_up() { throw NeedsJavaScriptDecoder{}; }

/**
 * The fields of a JSON object this decoder reads, by name; JSON null counts as absent, as
 * `== null` does in the JavaScript decoder. A known field sent twice gives up: JSON.parse keeps
 * the last, and that rare case is left to it.
 */
template <size_t N>
struct Fields {
  std::array<element, N> value{};
  std::array<bool, N> present{};

  Fields(element object, const std::array<std::string_view, N> &names) {
    if (object.type() != element_type::OBJECT) give_up();
    std::array<bool, N> seen{};
    const simdjson::dom::object fields = object.get_object().value_unsafe();
    for (auto field : fields) {
      for (size_t i = 0; i < N; i++) {
        if (field.key != names[i]) continue;
        if (seen[i]) give_up();
        seen[i] = true;
        if (field.value.type() != element_type::NULL_VALUE) {
          present[i] = true;
          value[i] = field.value;
        }
        break;
      }
    }
  }
};

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

/** A string of decimal digits as an unsigned 64-bit integer; gives up past 2^64 - 1. */
uint64_t digits_value(std::string_view s) {
  uint64_t n = 0;
  for (char c : s) {
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (n > (UINT64_MAX - digit) / 10) give_up();
    n = n * 10 + digit;
  }
  return n;
}

/** An integer JSON number that JSON.parse reads exactly (|n| < 2^53), else give up. */
int64_t exact_integer(element e) {
  if (e.type() != element_type::INT64) give_up();
  const int64_t n = e.get_int64().value_unsafe();
  if (n > kMaxSafeInteger || n < -kMaxSafeInteger) give_up();
  return n;
}

/** codec.uint64: absent is 0; a non-negative exact number or a string of digits. */
uint64_t read_uint64(const element *e) {
  if (e == nullptr) return 0;
  if (e->type() == element_type::STRING) {
    const std::string_view s = e->get_string().value_unsafe();
    if (!all_digits(s)) give_up();
    return digits_value(s);
  }
  const int64_t n = exact_integer(*e);
  if (n < 0) give_up();
  return static_cast<uint64_t>(n);
}

/** storedTime: a uint64 the store can keep. */
uint64_t read_time(const element *e) {
  const uint64_t ns = read_uint64(e);
  if (ns > kMaxStoredNs) give_up();
  return ns;
}

/** codec.uint32: absent is 0. */
uint32_t read_uint32(const element *e) {
  if (e == nullptr) return 0;
  uint64_t n;
  if (e->type() == element_type::STRING) {
    const std::string_view s = e->get_string().value_unsafe();
    if (!all_digits(s)) give_up();
    n = digits_value(s);
  } else {
    const int64_t v = exact_integer(*e);
    if (v < 0) give_up();
    n = static_cast<uint64_t>(v);
  }
  if (n > 0xffffffffULL) give_up();
  return static_cast<uint32_t>(n);
}

/** enumValue: an integer, or one of the enum's proto names. */
template <size_t N>
uint32_t read_enum(const element *e, const std::array<std::string_view, N> &names) {
  if (e != nullptr && e->type() == element_type::STRING) {
    const std::string_view s = e->get_string().value_unsafe();
    if (!all_digits(s)) {
      for (size_t i = 0; i < N; i++)
        if (s == names[i]) return static_cast<uint32_t>(i);
      give_up();
    }
  }
  return read_uint32(e);
}

/** optionalString: absent and "" are null. */
std::optional<std::string_view> read_optional_string(const element *e) {
  if (e == nullptr) return std::nullopt;
  if (e->type() != element_type::STRING) give_up();
  const std::string_view s = e->get_string().value_unsafe();
  if (s.empty()) return std::nullopt;
  return s;
}

/** A span or trace id as lowercase hex. */
struct Id {
  std::array<char, 32> hex;
  size_t size;
  std::string_view view() const { return std::string_view(hex.data(), size); }
  bool all_zero() const { return view().find_first_not_of('0') == std::string_view::npos; }
};

/** codec.id: an id of `size` bytes, or null when absent or empty. */
std::optional<Id> read_id(const element *e, size_t size) {
  if (e == nullptr) return std::nullopt;
  if (e->type() != element_type::STRING) give_up();
  const std::string_view s = e->get_string().value_unsafe();
  if (s.empty()) return std::nullopt;
  // Other lengths (base64 ids, errors) are the JavaScript decoder's.
  if (s.size() != size * 2 || s.size() > 32) give_up();
  Id id{{}, s.size()};
  for (size_t i = 0; i < s.size(); i++) {
    const char c = s[i];
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) id.hex[i] = c;
    else if (c >= 'A' && c <= 'F') id.hex[i] = static_cast<char>(c - 'A' + 'a');
    else give_up();
  }
  return id;
}

bool is_base64(std::string_view s) {
  size_t end = s.size();
  // /^[A-Za-z0-9+/]*={0,2}$/
  for (int pad = 0; pad < 2 && end > 0 && s[end - 1] == '='; pad++) end--;
  for (size_t i = 0; i < end; i++) {
    const char c = s[i];
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/'))
      return false;
  }
  return true;
}

/**
 * A key JavaScript orders before all others in an object (a canonical array index). Objects with
 * such keys are left to the JavaScript decoder, so key order here is always the order sent.
 */
bool is_array_index(std::string_view key) {
  if (!all_digits(key) || (key.size() > 1 && key[0] == '0') || key.size() > 10) return false;
  return digits_value(key) < 4294967295ULL;
}

/** What a written attribute value is, for its index text (indexText in any-value.ts). */
enum class ValueKind { Null, String, Other };

constexpr std::array<std::string_view, 7> kAnyValueFields{
    "stringValue", "boolValue", "intValue", "doubleValue", "bytesValue", "arrayValue", "kvlistValue"};
constexpr std::array<std::string_view, 1> kValuesField{"values"};
constexpr std::array<std::string_view, 2> kKeyValueFields{"key", "value"};

void write_plain_object(const element *list, std::string &out, int depth, TraceBatch *index_into = nullptr);

/**
 * Appends an AnyValue as plain JSON (toPlainValue). For a string, `raw` is its text.
 */
ValueKind write_any_value(const element *value, std::string &out, std::string_view &raw, int depth) {
  if (value == nullptr) {
    out.append("null");
    return ValueKind::Null;
  }
  if (value->type() != element_type::OBJECT || depth > kMaxDepth) give_up();
  const Fields<7> any(*value, kAnyValueFields);
  int kinds = 0;
  for (bool p : any.present) kinds += p;
  if (kinds == 0) {
    out.append("null");
    return ValueKind::Null;
  }
  if (kinds > 1) give_up();  // only the first kind in toPlainValue's order counts: rare, left to it
  if (any.present[0]) {  // stringValue
    if (any.value[0].type() != element_type::STRING) give_up();
    raw = any.value[0].get_string().value_unsafe();
    text::append_string(out, raw);
    return ValueKind::String;
  }
  if (any.present[1]) {  // boolValue
    if (any.value[1].type() != element_type::BOOL) give_up();
    out.append(any.value[1].get_bool().value_unsafe() ? "true" : "false");
    return ValueKind::Other;
  }
  if (any.present[2]) {  // intValue: up to 2^53 - 1 (larger ones are stored as text, by JavaScript)
    const element &e = any.value[2];
    int64_t n;
    if (e.type() == element_type::STRING) {
      std::string_view s = e.get_string().value_unsafe();
      const bool negative = !s.empty() && s[0] == '-';
      if (negative) s.remove_prefix(1);
      if (!all_digits(s)) give_up();
      const uint64_t magnitude = digits_value(s);
      if (magnitude > static_cast<uint64_t>(kMaxSafeInteger)) give_up();
      n = negative ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
    } else {
      n = exact_integer(e);
    }
    text::append_integer(out, n);
    return ValueKind::Other;
  }
  if (any.present[3]) {  // doubleValue
    const element &e = any.value[3];
    switch (e.type()) {
      case element_type::DOUBLE: text::append_double(out, e.get_double().value_unsafe()); break;
      case element_type::INT64: text::append_double(out, static_cast<double>(e.get_int64().value_unsafe())); break;
      case element_type::UINT64: text::append_double(out, static_cast<double>(e.get_uint64().value_unsafe())); break;
      case element_type::STRING: {
        const std::string_view s = e.get_string().value_unsafe();
        if (s != "NaN" && s != "Infinity" && s != "-Infinity") give_up();
        raw = s;
        text::append_string(out, s);
        return ValueKind::String;
      }
      default: give_up();
    }
    return ValueKind::Other;
  }
  if (any.present[4]) {  // bytesValue: base64 text, stored as it came
    if (any.value[4].type() != element_type::STRING) give_up();
    raw = any.value[4].get_string().value_unsafe();
    if (!is_base64(raw)) give_up();
    text::append_string(out, raw);
    return ValueKind::String;
  }
  if (any.present[5]) {  // arrayValue
    const Fields<1> array(any.value[5], kValuesField);
    const element *values = array.present[0] ? &array.value[0] : nullptr;
    out.push_back('[');
    if (values != nullptr) {
      if (values->type() != element_type::ARRAY) give_up();
      bool first = true;
      const simdjson::dom::array items = values->get_array().value_unsafe();
      for (element item : items) {
        if (!first) out.push_back(',');
        first = false;
        std::string_view ignored;
        const element *entry = item.type() == element_type::NULL_VALUE ? nullptr : &item;
        write_any_value(entry, out, ignored, depth + 1);
      }
    }
    out.push_back(']');
    return ValueKind::Other;
  }
  // kvlistValue
  const Fields<1> kvlist(any.value[6], kValuesField);
  write_plain_object(kvlist.present[0] ? &kvlist.value[0] : nullptr, out, depth + 1);
  return ValueKind::Other;
}

/**
 * Appends a KeyValue list as a JSON object (toPlainObject). With `index_into`, also appends
 * the attribute index entries (describeAttributes) to its `indexed`: the entry count, then key
 * and value texts as `strings` indexes.
 */
void write_plain_object(const element *list, std::string &out, int depth, TraceBatch *index_into) {
  std::vector<int32_t> *index = index_into != nullptr ? &index_into->indexed : nullptr;
  size_t count_at = 0;
  if (index != nullptr) {
    count_at = index->size();
    index->push_back(0);
  }
  out.push_back('{');
  if (list != nullptr) {
    if (list->type() != element_type::ARRAY) give_up();
    // Keys seen so far, to find one sent twice: a short list, then a set once the list is long.
    std::array<std::string_view, 16> few_keys;
    size_t key_count = 0;
    std::unordered_set<std::string_view> many_keys;
    const simdjson::dom::array items = list->get_array().value_unsafe();
    for (element item : items) {
      const Fields<2> kv(item, kKeyValueFields);
      if (!kv.present[0] || kv.value[0].type() != element_type::STRING) give_up();
      const std::string_view key = kv.value[0].get_string().value_unsafe();
      if (is_array_index(key)) give_up();
      // A repeated key keeps its first place and last value in JavaScript: rare, left to it.
      if (key_count < few_keys.size()) {
        for (size_t i = 0; i < key_count; i++)
          if (few_keys[i] == key) give_up();
        few_keys[key_count] = key;
      } else {
        if (many_keys.empty()) many_keys.insert(few_keys.begin(), few_keys.end());
        if (!many_keys.insert(key).second) give_up();
      }
      if (key_count++ > 0) out.push_back(',');
      text::append_string(out, key);
      out.push_back(':');
      const size_t value_at = out.size();
      std::string_view raw;
      const ValueKind kind = write_any_value(kv.present[1] ? &kv.value[1] : nullptr, out, raw, depth);
      if (index == nullptr || kind == ValueKind::Null) continue;
      (*index)[count_at]++;
      index->push_back(index_into->strings.intern(key));
      index->push_back(index_into->strings.intern(
          kind == ValueKind::String ? raw : std::string_view(out).substr(value_at)));
    }
  }
  out.push_back('}');
}

std::string attributes_json(const element *list) {
  std::string json;
  write_plain_object(list, json, 0);
  return json;
}

void append_optional_string(std::string &out, std::optional<std::string_view> s) {
  if (s) text::append_string(out, *s);
  else out.append("null");
}

void append_optional_id(std::string &out, const std::optional<Id> &id) {
  if (id) text::append_string(out, id->view());
  else out.append("null");
}

template <size_t N>
const element *field(const Fields<N> &fields, size_t i) {
  return fields.present[i] ? &fields.value[i] : nullptr;
}

constexpr std::array<std::string_view, 4> kEventFields{"name", "timeUnixNano", "attributes",
                                                       "droppedAttributesCount"};
constexpr std::array<std::string_view, 6> kLinkFields{"traceId",    "spanId", "traceState",
                                                      "attributes", "droppedAttributesCount", "flags"};

/** A list as a JSON array text, each item written by `write_item`; nothing for none (listOf). */
template <typename WriteItem>
std::optional<std::string> json_array(const element *value, WriteItem write_item) {
  if (value == nullptr) return std::nullopt;
  if (value->type() != element_type::ARRAY) give_up();
  std::string out = "[";
  const simdjson::dom::array items = value->get_array().value_unsafe();
  for (element item : items) {
    if (out.size() > 1) out.push_back(',');
    write_item(item, out);
  }
  if (out.size() == 1) return std::nullopt;
  out.push_back(']');
  return out;
}

/** decodeEvents: a JSON array text, or nothing for no events. */
std::optional<std::string> events_json(const element *value) {
  return json_array(value, [](element item, std::string &out) {
    const Fields<4> event(item, kEventFields);
    out.append("{\"name\":");
    text::append_string(out, read_optional_string(field(event, 0)).value_or(""));
    out.append(",\"timeUnixNano\":\"");
    text::append_unsigned(out, read_uint64(field(event, 1)));
    out.append("\",\"attributes\":");
    write_plain_object(field(event, 2), out, 0);
    out.append(",\"droppedAttributesCount\":");
    text::append_unsigned(out, read_uint32(field(event, 3)));
    out.push_back('}');
  });
}

/** decodeLinks: a JSON array text, or nothing for no links. */
std::optional<std::string> links_json(const element *value) {
  return json_array(value, [](element item, std::string &out) {
    const Fields<6> link(item, kLinkFields);
    const auto trace_id = read_id(field(link, 0), 16);
    const auto span_id = read_id(field(link, 1), 8);
    out.append("{\"traceId\":");
    append_optional_id(out, trace_id);
    out.append(",\"spanId\":");
    append_optional_id(out, span_id);
    out.append(",\"traceState\":");
    append_optional_string(out, read_optional_string(field(link, 2)));
    out.append(",\"attributes\":");
    write_plain_object(field(link, 3), out, 0);
    out.append(",\"droppedAttributesCount\":");
    text::append_unsigned(out, read_uint32(field(link, 4)));
    out.append(",\"flags\":");
    text::append_unsigned(out, read_uint32(field(link, 5)));
    out.push_back('}');
  });
}

constexpr std::array<std::string_view, 6> kSpanKinds{"SPAN_KIND_UNSPECIFIED", "SPAN_KIND_INTERNAL",
                                                     "SPAN_KIND_SERVER",      "SPAN_KIND_CLIENT",
                                                     "SPAN_KIND_PRODUCER",    "SPAN_KIND_CONSUMER"};
constexpr std::array<std::string_view, 3> kStatusCodes{"STATUS_CODE_UNSET", "STATUS_CODE_OK",
                                                       "STATUS_CODE_ERROR"};
constexpr std::array<std::string_view, 2> kStatusFields{"code", "message"};
constexpr std::array<std::string_view, 16> kSpanFields{
    "traceId",    "spanId",  "traceState", "parentSpanId",           "flags",  "name",
    "kind",       "startTimeUnixNano",     "endTimeUnixNano",        "attributes",
    "droppedAttributesCount", "events",    "droppedEventsCount",     "links",  "droppedLinksCount",
    "status"};

class TraceDecoder {
 public:
  explicit TraceDecoder(TraceBatch &out) : out_(out) {}

  void decode(element root) {
    static constexpr std::array<std::string_view, 1> kRoot{"resourceSpans"};
    static constexpr std::array<std::string_view, 3> kResourceSpans{"resource", "schemaUrl", "scopeSpans"};
    static constexpr std::array<std::string_view, 3> kScopeSpans{"scope", "schemaUrl", "spans"};
    const Fields<1> request(root, kRoot);
    for_each(field(request, 0), [&](element resource_spans) {
      const Fields<3> entry(resource_spans, kResourceSpans);
      const auto resource = static_cast<double>(out_.resources.size());
      out_.resources.push_back(resource_entry(field(entry, 0), field(entry, 1)));
      for_each(field(entry, 2), [&](element scope_spans) {
        const Fields<3> scope_entry(scope_spans, kScopeSpans);
        const auto scope = static_cast<double>(out_.scopes.size());
        out_.scopes.push_back(this->scope_entry(field(scope_entry, 0), field(scope_entry, 1)));
        for_each(field(scope_entry, 2), [&](element span) { decode_span(span, resource, scope); });
      });
    });
  }

 private:
  TraceBatch &out_;

  /** listOf: calls `visit` with each item; absent is empty, anything but an array gives up. */
  template <typename Visit>
  static void for_each(const element *value, Visit visit) {
    if (value == nullptr) return;
    if (value->type() != element_type::ARRAY) give_up();
    const simdjson::dom::array items = value->get_array().value_unsafe();
    for (element item : items) visit(item);
  }

  static ResourceEntry resource_entry(const element *value, const element *schema_url) {
    static constexpr std::array<std::string_view, 2> kResource{"attributes", "droppedAttributesCount"};
    ResourceEntry entry;
    if (value == nullptr) {
      entry.attributes = "{}";
    } else {
      const Fields<2> resource(*value, kResource);
      entry.attributes = attributes_json(field(resource, 0));
      entry.dropped_attributes_count = read_uint32(field(resource, 1));
    }
    if (auto url = read_optional_string(schema_url)) entry.schema_url = std::string(*url);
    return entry;
  }

  static ScopeEntry scope_entry(const element *value, const element *schema_url) {
    static constexpr std::array<std::string_view, 4> kScope{"name", "version", "attributes",
                                                            "droppedAttributesCount"};
    ScopeEntry entry;
    if (value == nullptr) {
      entry.attributes = "{}";
    } else {
      const Fields<4> scope(*value, kScope);
      entry.name = std::string(read_optional_string(field(scope, 0)).value_or(""));
      if (auto version = read_optional_string(field(scope, 1))) entry.version = std::string(*version);
      entry.attributes = attributes_json(field(scope, 2));
      entry.dropped_attributes_count = read_uint32(field(scope, 3));
    }
    if (auto url = read_optional_string(schema_url)) entry.schema_url = std::string(*url);
    return entry;
  }

  std::string attributes_;  // one span's attributes JSON; kept to reuse its memory

  double add_text(std::string_view value) { return out_.texts.add(value); }

  template <typename Text>
  double add_optional_text(const std::optional<Text> &value) {
    return value ? add_text(*value) : -1;
  }

  void decode_span(element value, double resource, double scope) {
    const Fields<16> span(value, kSpanFields);
    const auto trace_id = read_id(field(span, 0), 16);
    const auto span_id = read_id(field(span, 1), 8);
    if (!trace_id || trace_id->all_zero() || !span_id || span_id->all_zero()) give_up();
    auto parent = read_id(field(span, 3), 8);
    if (parent && parent->all_zero()) parent.reset();

    uint32_t status_code = 0;
    std::optional<std::string_view> status_message;
    if (const element *status = field(span, 15)) {
      const Fields<2> fields(*status, kStatusFields);
      status_code = read_enum(field(fields, 0), kStatusCodes);
      status_message = read_optional_string(field(fields, 1));
    }
    std::string_view name;
    if (const element *e = field(span, 5)) {
      if (e->type() != element_type::STRING) give_up();
      name = e->get_string().value_unsafe();
    }

    std::array<double, kSpanSlots> slots{};
    slots[kTraceId] = out_.strings.intern(trace_id->view());
    slots[kSpanId] = add_text(span_id->view());
    slots[kParentSpanId] = parent ? out_.strings.intern(parent->view()) : -1;
    slots[kTraceState] = add_optional_text(read_optional_string(field(span, 2)));
    slots[kFlags] = read_uint32(field(span, 4));
    slots[kName] = out_.strings.intern(name);
    slots[kKind] = read_enum(field(span, 6), kSpanKinds);
    slots[kStatusCode] = status_code;
    slots[kStatusMessage] = add_optional_text(status_message);
    attributes_.clear();
    write_plain_object(field(span, 9), attributes_, 0, &out_);
    slots[kAttributes] = add_text(attributes_);
    slots[kEvents] = add_optional_text(events_json(field(span, 11)));
    slots[kLinks] = add_optional_text(links_json(field(span, 13)));
    slots[kDroppedAttributes] = read_uint32(field(span, 10));
    slots[kDroppedEvents] = read_uint32(field(span, 12));
    slots[kDroppedLinks] = read_uint32(field(span, 14));
    slots[kResource] = resource;
    slots[kScope] = scope;
    out_.times.push_back(read_time(field(span, 7)));
    out_.times.push_back(read_time(field(span, 8)));
    out_.numbers.insert(out_.numbers.end(), slots.begin(), slots.end());
    out_.span_count++;
  }
};

}  // namespace

void decode_trace_request(const uint8_t *body, size_t length, TraceBatch &out) {
  // JSON.parse refuses a byte order mark, which simdjson would skip.
  if (length >= 3 && body[0] == 0xEF && body[1] == 0xBB && body[2] == 0xBF) give_up();
  // A parser's buffers take about 14 bytes per byte of the largest body it has read. One parser
  // per thread keeps them from one request to the next, for bodies up to 2 MiB (28 MB); a larger
  // body gets a parser of its own, freed when it is decoded.
  constexpr size_t kKeptCapacity = 2 << 20;
  thread_local simdjson::dom::parser kept;
  std::optional<simdjson::dom::parser> once;
  simdjson::dom::parser &parser = length <= kKeptCapacity ? kept : once.emplace();
  element root;
  if (parser.parse(body, length).get(root) != simdjson::SUCCESS) give_up();
  TraceDecoder(out).decode(root);
}

}  // namespace obs
