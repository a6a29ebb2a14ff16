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

template <typename Strings>
Napi::Array string_array(Napi::Env env, const Strings &strings) {
  Napi::Array array = Napi::Array::New(env, strings.size());
  uint32_t i = 0;
  for (const std::string &s : strings) array.Set(i++, Napi::String::New(env, s.data(), s.size()));
  return array;
}

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
  result.Set("strings", string_array(env, batch.strings.strings()));
  result.Set("texts", string_array(env, batch.texts));
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
  } catch (const std::exception &error) {
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
