#pragma once
// YAML::LoadAll without its hang. yaml-cpp 0.7 returns an empty document for a stray ',' at the top level
// (",", "a: 1\n,") without consuming it, so LoadAll loops forever and grows its list of documents
// (found by tests/fuzz, regression yaml-loadall-stray-comma-loops-forever.yaml). A first pass over the
// parser's events stops when a document starts where the previous one did. Header-only: its users
// link yaml-cpp themselves.
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/yaml.h>

#include <sstream>
#include <string>
#include <vector>

namespace gtw {

/// A parser event handler that ignores every event; override what you need.
class IgnoringEventHandler : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

/// Every document of `text`; throws YAML::Exception (with its mark) for syntax errors, including a
/// token no document consumes, and for more than `max_documents` documents.
inline std::vector<YAML::Node> load_all_documents(const std::string& text, size_t max_documents = 64) {
  struct Starts : IgnoringEventHandler {
    YAML::Mark start;
    bool started = false;
    void OnDocumentStart(const YAML::Mark& m) override {
      start = m;
      started = true;
    }
  };
  std::stringstream in(text);
  YAML::Parser parser(in);
  int previous = -1;
  for (size_t n = 0;; ++n) {
    Starts doc;
    if (!parser.HandleNextDocument(doc)) break;
    if (doc.started && doc.start.pos == previous)
      throw YAML::ParserException(doc.start, "unexpected ',' or other token outside a list or mapping");
    if (n + 1 > max_documents)
      throw YAML::ParserException(doc.start, "more than " + std::to_string(max_documents) + " YAML documents");
    previous = doc.started ? doc.start.pos : previous;
  }
  return YAML::LoadAll(text);
}

}  // namespace gtw
