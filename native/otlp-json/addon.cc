// The Node-API face of the native OTLP/JSON trace decoder: bytes in, packed columns out, or
// undefined when the request needs the JavaScript decoder. See daemon/otlp/native-json-traces.ts.
#include <napi.h>

#include <cstring>
#include <exception>

#include "trace-batch.h"

namespace {

Napi::Value optional_string(Napi::Env env, const std::optional<std::string> &value) {
  if (!value) return env.Null();
  return Napi::String::New(env, *value);
}

bool is_ascii(std::string_view s) {
  unsigned char any = 0;
  for (char c : s) any |= static_cast<unsigned char>(c);
  return any < 0x80;
}

/**
 * The batch's strings for JavaScript. Creating each through Node-API costs about 160 ns; so
 * the whole buffer becomes one Latin-1 string that JavaScript slices (about 20 ns a string),
 * and only strings that are not ASCII are created one by one, into `wide`. Their bounds
 * become [-1 - i, 0] for `wide[i]`.
 */
class JsStrings {
 public:
  JsStrings(Napi::Env env, const std::string &bytes) : env_(env), bytes_(bytes), wide_(Napi::Array::New(env)) {}

  Napi::Int32Array bounds(const obs::StringList &list) {
    const std::vector<int32_t> &bounds = list.bounds();
    Napi::Int32Array array = Napi::Int32Array::New(env_, bounds.size());
    int32_t *out = array.Data();
    for (size_t i = 0; i < bounds.size(); i += 2) {
      const std::string_view s = list.at(static_cast<int32_t>(i / 2));
      if (is_ascii(s)) {
        out[i] = bounds[i];
        out[i + 1] = bounds[i + 1];
      } else {
        out[i] = -1 - static_cast<int32_t>(wide_.Length());
        out[i + 1] = 0;
        wide_.Set(wide_.Length(), Napi::String::New(env_, s.data(), s.size()));
      }
    }
    return array;
  }

  /** The buffer as Latin-1: its ASCII parts read right; the rest is never sliced. */
  Napi::Value latin1() const {
    napi_value value;
    NAPI_THROW_IF_FAILED(env_, napi_create_string_latin1(env_, bytes_.data(), bytes_.size(), &value), Napi::Value());
    return Napi::Value(env_, value);
  }

  Napi::Array wide() const { return wide_; }

 private:
  Napi::Env env_;
  const std::string &bytes_;
  Napi::Array wide_;
};

template <typename Array, typename T>
Array typed_array(Napi::Env env, const std::vector<T> &values) {
  Array array = Array::New(env, values.size());
  if (!values.empty()) std::memcpy(array.Data(), values.data(), values.size() * sizeof(T));
  return array;
}

Napi::Object to_js(Napi::Env env, const obs::TraceBatch &batch) {
  Napi::Array resources = Napi::Array::New(env, batch.resources.size());
  for (uint32_t i = 0; i < batch.resources.size(); i++) {
    const obs::ResourceEntry &r = batch.resources[i];
    Napi::Array entry = Napi::Array::New(env, 3);
    entry.Set(0u, Napi::String::New(env, r.attributes));
    entry.Set(1u, Napi::Number::New(env, r.dropped_attributes_count));
    entry.Set(2u, optional_string(env, r.schema_url));
    resources.Set(i, entry);
  }
  Napi::Array scopes = Napi::Array::New(env, batch.scopes.size());
  for (uint32_t i = 0; i < batch.scopes.size(); i++) {
    const obs::ScopeEntry &s = batch.scopes[i];
    Napi::Array entry = Napi::Array::New(env, 5);
    entry.Set(0u, Napi::String::New(env, s.name));
    entry.Set(1u, optional_string(env, s.version));
    entry.Set(2u, Napi::String::New(env, s.attributes));
    entry.Set(3u, Napi::Number::New(env, s.dropped_attributes_count));
    entry.Set(4u, optional_string(env, s.schema_url));
    scopes.Set(i, entry);
  }
  Napi::Object result = Napi::Object::New(env);
  result.Set("resources", resources);
  result.Set("scopes", scopes);
  JsStrings strings(env, batch.bytes);
  result.Set("stringBounds", strings.bounds(batch.strings.list()));
  result.Set("textBounds", strings.bounds(batch.texts));
  result.Set("latin1", strings.latin1());
  result.Set("wide", strings.wide());
  result.Set("numbers", typed_array<Napi::Float64Array>(env, batch.numbers));
  result.Set("times", typed_array<Napi::BigUint64Array>(env, batch.times));
  result.Set("indexed", typed_array<Napi::Int32Array>(env, batch.indexed));
  return result;
}

/** decodeTraces(body: Uint8Array): NativeTraceBatch | undefined */
Napi::Value DecodeTraces(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsTypedArray()) {
    throw Napi::TypeError::New(env, "decodeTraces expects one Uint8Array");
  }
  Napi::Uint8Array body = info[0].As<Napi::Uint8Array>();
  obs::TraceBatch batch;
  try {
    obs::decode_trace_request(body.Data(), body.ByteLength(), batch);
  } catch (const obs::NeedsJavaScriptDecoder &) {
    return env.Undefined();
  } catch (const std::exception &) {
    // simdjson_error on a type it did not expect: also a case for the JavaScript decoder.
    return env.Undefined();
  }
  return to_js(env, batch);
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("decodeTraces", Napi::Function::New(env, DecodeTraces, "decodeTraces"));
  return exports;
}

}  // namespace

NODE_API_MODULE(otlp_json, Init)
