// JSON text exactly as JavaScript's JSON.stringify and String(number) write it, so the native
// decoder stores byte-for-byte the attribute, event and link texts the JavaScript decoder would.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

namespace obs::json_text {

/** Appends `text` (valid UTF-8) as a JSON string literal, escaping as JSON.stringify does. */
inline void append_string(std::string &out, std::string_view text) {
  static const char HEX[] = "0123456789abcdef";
  out.push_back('"');
  size_t run = 0;  // start of the bytes not yet copied
  for (size_t i = 0; i < text.size(); i++) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(text.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out.append("\\\""); break;
      case '\\': out.append("\\\\"); break;
      case '\b': out.append("\\b"); break;
      case '\f': out.append("\\f"); break;
      case '\n': out.append("\\n"); break;
      case '\r': out.append("\\r"); break;
      case '\t': out.append("\\t"); break;
      default:
        out.append("\\u00");
        out.push_back(HEX[c >> 4]);
        out.push_back(HEX[c & 0xf]);
    }
  }
  out.append(text.data() + run, text.size() - run);
  out.push_back('"');
}

/** Appends a signed integer in decimal. */
inline void append_integer(std::string &out, int64_t value) {
  char buffer[24];
  auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
  out.append(buffer, end - buffer);
}

/** Appends an unsigned integer in decimal. */
inline void append_unsigned(std::string &out, uint64_t value) {
  char buffer[24];
  auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
  out.append(buffer, end - buffer);
}

/**
 * Appends a finite double as ECMAScript's Number::toString writes it: the shortest digits that
 * read back to the same value, in fixed notation for exponents from -7 to 20 and in exponent
 * notation ("1.5e+21", "1e-7") beyond; -0 as "0".
 */
inline void append_double(std::string &out, double value) {
  if (value == 0) {
    out.push_back('0');
    return;
  }
  // Shortest round-trip digits in scientific form: "-d.ddde+XX".
  char buffer[40];
  auto end = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific).ptr;
  std::string_view text(buffer, end - buffer);
  if (text.front() == '-') {
    out.push_back('-');
    text.remove_prefix(1);
  }
  const size_t e = text.find('e');
  std::string digits;
  for (char c : text.substr(0, e))
    if (c != '.') digits.push_back(c);
  int exponent = 0;
  std::from_chars(text.data() + e + 1 + (text[e + 1] == '+' ? 1 : 0), text.data() + text.size(), exponent);
  const int k = static_cast<int>(digits.size());
  const int n = exponent + 1;  // the decimal point sits after n digits
  if (k <= n && n <= 21) {
    out.append(digits);
    out.append(static_cast<size_t>(n - k), '0');
  } else if (0 < n && n <= 21) {
    out.append(digits, 0, n);
    out.push_back('.');
    out.append(digits, n, std::string::npos);
  } else if (-6 < n && n <= 0) {
    out.append("0.");
    out.append(static_cast<size_t>(-n), '0');
    out.append(digits);
  } else {
    out.push_back(digits[0]);
    if (k > 1) {
      out.push_back('.');
      out.append(digits, 1, std::string::npos);
    }
    out.push_back('e');
    out.push_back(n - 1 >= 0 ? '+' : '-');
    append_integer(out, std::abs(n - 1));
  }
}

}  // namespace obs::json_text
