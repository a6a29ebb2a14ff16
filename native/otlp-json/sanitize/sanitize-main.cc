// Runs the native trace decoder over a corpus of request bodies, for a build with
// AddressSanitizer and UBSan (scripts/sanitize-native.js): any out-of-bounds access, leak or
// undefined behaviour aborts the run. The corpus is length-prefixed: 10 decimal digits, then
// the body. Each body is copied to a buffer of its exact size, so reading past it is caught.
#include <cstdio>
#include <exception>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "../trace-batch.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  const std::string corpus((std::istreambuf_iterator<char>(in)), {});
  size_t taken = 0, declined = 0, spans = 0;
  for (size_t at = 0; at + 10 <= corpus.size();) {
    const size_t length = std::stoul(corpus.substr(at, 10));
    auto body = std::make_unique<uint8_t[]>(length);
    corpus.copy(reinterpret_cast<char *>(body.get()), length, at + 10);
    at += 10 + length;
    obs::TraceBatch batch;
    try {
      obs::decode_trace_request(body.get(), length, batch);
      taken++;
      spans += batch.span_count;
    } catch (const obs::NeedsJavaScriptDecoder &) {
      declined++;
    } catch (const std::exception &) {
      declined++;
    }
  }
  std::printf("%zu bodies: %zu decoded (%zu spans), %zu left to the JavaScript decoder\n", taken + declined, taken,
              spans, declined);
  return 0;
}
