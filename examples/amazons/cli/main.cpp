// amazons — the command-line front end of the Amazons example of gsearch.
//
//   amazons perft [--fen FEN] [--moves ...] --depth D [--decisions] [--divide]
//   amazons show  [--fen FEN] [--moves ...] [--ascii | --unicode]
//   amazons legal [--fen FEN] [--moves ...] [--decisions]
//   amazons agents
//   amazons match A B [--games G] [--threads T] [--seed S] [--json FILE] [--records FILE]
//                     [--book FILE] [--sprt elo0=E0,elo1=E1[,alpha=A,beta=B,model=M]]
//   amazons replay FILE
//   amazons play [--agent SPEC] [--colour white|black]
//   amazons analyze [--fen FEN] [--moves ...] [--agent SPEC]
//   amazons engine [--agent SPEC]
//   amazons label --out FILE [--url URL] [--players A B] [--games G] [--candidates SPEC]
//   amazons teacher-serve [--port P] [--noise X] [--malformed P] [--drop P] ...
//   amazons train --labels FILE [--out DIR]
//   amazons reproduce [--games G] [--quick]
//   amazons solve [--fen FEN] [--method ab|dfpn] ...
//   amazons bench
//   amazons serve [--port P] [--host H] [--agent SPEC]
//   amazons book --out FILE [--turns N] [--count K] [--seed S] [--agent SPEC] [--margin M]
//   amazons tournament A B C... --out DIR [--gauntlet] [-g G] [--book FILE] [--threads T]
//
// Errors are one line on stderr, "amazons: error: ...". Exit codes: 0 success, 1 failure,
// 2 bad input.
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>

#include "cli/command.hpp"

namespace {

// Errors are one printable line whatever they quote (CLI11 messages may span lines; a parser's
// message may hold bytes of a binary file): line breaks become spaces, other control bytes and
// bytes that are not UTF-8 become \xNN, and the line is cut at kMaxErrorBytes.
constexpr std::size_t kMaxErrorBytes = 500;

std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  const std::size_t n = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return 0;
  return n;
}

std::string one_line(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < s.size() && out.size() < kMaxErrorBytes;) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\n' || c == '\r' || c == '\t') {
      out += ' ';
    } else if (c >= 0x20 && c < 0x7f) {
      out += s[i];
    } else if (const std::size_t n = c >= 0x80 ? utf8_length(s, i) : 0; n > 0) {
      out.append(s.substr(i, n));
      i += n;
      continue;
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
    ++i;
  }
  if (out.size() >= kMaxErrorBytes) out += "... (cut short)";
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

int fail(int code, const std::string& message) {
  std::fprintf(stderr, "amazons: error: %s\n", one_line(message).c_str());
  std::fflush(stderr);
  amazons::cli::end_mpi_job(code);  // under mpirun: the other ranks must not wait for this one
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace amazons::cli;
  const MpiSession mpi(argc, argv);
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
  add_bench_commands(app);
  add_book_commands(app);
  add_tune_commands(app);
  add_serve_commands(app);
  try {
    app.parse(argc, argv);
  } catch (const Interrupted& e) {
    end_mpi_job(e.exit_code());
    return e.exit_code();
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
