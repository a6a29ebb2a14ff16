{
  "targets": [
    {
      "target_name": "otlp_json",
      "sources": [
        "native/otlp-json/addon.cc",
        "native/otlp-json/decode-traces.cc",
        "native/otlp-json/simdjson.cc"
      ],
      "include_dirs": [
        "<!(node -p \"require('node-addon-api').include_dir\")",
        "<!(node -p \"require('node:path').dirname(require.resolve('@nozbe/simdjson/src/simdjson.h'))\")"
      ],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS", "NODE_ADDON_API_DISABLE_DEPRECATED"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions", "-std=gnu++17"],
      "cflags_cc": ["-std=gnu++20", "-O3", "-fexceptions"]
    }
  ]
}
