// simdjson's On-Demand API over a decoded trace held in memory, on one core:
// the fastest JSON reader we know of, as the yardstick for opguard-trace's
// scanner. Built and run by ../json_scanners.py against simdjson's
// amalgamated sources (taken from the pysimdjson sdist it pins).
//
//   simdjson_ondemand lazy|all TRACE.json [PASSES]
//
// `lazy`: every event's `ph` and `cat`, counted by pair; every other value is
// skipped (On-Demand then checks its structure, not its grammar: less than
// opguard validates). `all`: every value of the document is visited and
// decoded (strings unescaped, numbers parsed), which validates all of it.
// Prints one JSON line like the Rust probe's: the fastest of PASSES (default
// 5) passes in this process, so the parser's buffers are already allocated
// (the figure most favourable to simdjson). Reading the file is not timed.
#include "simdjson.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>

using namespace simdjson;

static size_t visit(ondemand::value v) {
  size_t n = 0;
  switch (v.type()) {
    case ondemand::json_type::object:
      for (auto field : v.get_object()) {
        n += std::string_view(field.unescaped_key()).size();
        n += visit(field.value());
      }
      break;
    case ondemand::json_type::array:
      for (auto element : v.get_array()) n += visit(element.value());
      break;
    case ondemand::json_type::string:
      n += std::string_view(v.get_string()).size();
      break;
    case ondemand::json_type::number:
      n += double(v.get_double()) > 0;
      break;
    case ondemand::json_type::boolean:
      n += bool(v.get_bool());
      break;
    case ondemand::json_type::null:
      n += bool(v.is_null());
      break;
  }
  return n;
}

struct Pass {
  std::map<std::string, size_t> pairs;
  size_t events = 0;
  size_t visited = 0;
};

// One pass over the document; throws simdjson_error on invalid JSON.
static Pass one_pass(ondemand::parser& parser, const padded_string& json, bool all) {
  Pass out;
  ondemand::document doc = parser.iterate(json);
  for (auto member : doc.get_object()) {
    if (std::string_view(member.unescaped_key()) != "traceEvents") {
      if (all) out.visited += visit(member.value());
      continue;
    }
    for (auto element : member.value().get_array()) {
      out.events++;
      std::string_view ph, cat;
      for (auto field : element.get_object()) {
        std::string_view key = field.unescaped_key();
        if (key == "ph") ph = field.value().get_string();
        else if (key == "cat") cat = field.value().get_string();
        else if (all) out.visited += visit(field.value());
      }
      std::string pair(ph);
      pair += '/';
      pair += cat;
      out.pairs[pair]++;
    }
  }
  return out;
}

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4 || (strcmp(argv[1], "lazy") != 0 && strcmp(argv[1], "all") != 0)) {
    std::fprintf(stderr, "usage: simdjson_ondemand lazy|all TRACE.json [PASSES]\n");
    return 64;
  }
  const bool all = strcmp(argv[1], "all") == 0;
  const int passes = argc == 4 ? std::atoi(argv[3]) : 5;
  padded_string json = padded_string::load(argv[2]);
  ondemand::parser parser;
  Pass last;
  double seconds = 1e9;
  for (int pass = 0; pass < passes; pass++) {
    auto start = std::chrono::steady_clock::now();
    try {
      last = one_pass(parser, json, all);
    } catch (const simdjson_error& e) {
      std::fprintf(stderr, "simdjson: %s\n", e.what());
      return 1;
    }
    auto elapsed = std::chrono::steady_clock::now() - start;
    seconds = std::min(seconds, std::chrono::duration<double>(elapsed).count());
  }
  std::printf("{\"scanner\":\"simdjson-ondemand-%s\",\"kernel\":\"%s\",\"seconds\":%.9f,"
              "\"bytes\":%zu,\"events\":%zu,\"visited\":%zu,\"pairs\":{",
              argv[1], get_active_implementation()->name().c_str(), seconds, json.size(),
              last.events, last.visited);
  const char* sep = "";
  for (const auto& [pair, count] : last.pairs) {
    std::printf("%s\"%s\":%zu", sep, pair.c_str(), count);
    sep = ",";
  }
  std::printf("}}\n");
  return 0;
}
