// amazons — the command-line front end of the Amazons example of gsearch.
//
//   amazons perft [--fen FEN] [--moves ...] --depth D [--decisions] [--divide]
//   amazons show  [--fen FEN] [--moves ...] [--ascii | --unicode]
//   amazons legal [--fen FEN] [--moves ...] [--decisions]
//   amazons agents
//   amazons match A B [--games G] [--threads T] [--seed S] [--json FILE] [--records FILE]
//   amazons replay FILE
//   amazons play [--agent SPEC] [--colour white|black]
//   amazons analyze [--fen FEN] [--moves ...] [--agent SPEC]
//   amazons engine [--agent SPEC]
//   amazons label --out FILE [--url URL] [--players A B] [--games G] [--candidates SPEC]
//   amazons teacher-serve [--port P] [--noise X] [--malformed P] [--drop P] ...
//   amazons train --labels FILE [--out DIR]
//   amazons reproduce [--games G] [--quick]
//
// Errors are one line on stderr, "amazons: error: ...". Exit codes: 0 success, 1 failure,
// 2 bad input.
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>

#include "cli/command.hpp"

namespace {

// CLI11 messages may span lines; errors here are one line.
std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

int fail(int code, const std::string& message) {
  std::fprintf(stderr, "amazons: error: %s\n", one_line(message).c_str());
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace amazons::cli;
  CLI::App app{"amazons: the Game of the Amazons on gsearch (rules, perft, search, matches)",
               "amazons"};
  app.require_subcommand(1);
  app.fallthrough(false);
  add_rules_commands(app);
  add_match_commands(app);
  add_play_commands(app);
  add_paper_commands(app, argc, argv);
  add_label_commands(app);
  add_solve_commands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    return fail(kExitBadInput, std::string(e.what()) + " (see amazons --help)");
  } catch (const std::invalid_argument& e) {  // NotationError, SpecError
    return fail(kExitBadInput, e.what());
  } catch (const BadInput& e) {
    return fail(kExitBadInput, e.what());
  } catch (const std::exception& e) {
    return fail(kExitFailure, e.what());
  }
  return 0;
}
