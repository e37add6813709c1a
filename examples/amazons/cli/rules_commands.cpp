// amazons perft | show | legal — the rules, made visible.
#include <unistd.h>

#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "amazons/rules/decision.hpp"
#include "amazons/rules/render.hpp"
#include "cli/command.hpp"
#include "gsearch/core/budget.hpp"
#include "gsearch/testing/perft.hpp"

namespace amazons::cli {
namespace {

// Unicode when stdout is a terminal whose locale speaks UTF-8.
bool terminal_speaks_utf8() {
  if (!isatty(STDOUT_FILENO)) return false;
  for (const char* var : {"LC_ALL", "LC_CTYPE", "LANG"}) {
    const char* v = std::getenv(var);
    if (v && *v) return std::strstr(v, "UTF-8") || std::strstr(v, "utf8") || std::strstr(v, "UTF8");
  }
  return false;
}

template <class G>
void run_perft(const G& state, int depth, bool divide) {
  gsearch::Stopwatch watch;
  std::uint64_t leaves = 0;
  if (divide) {
    for (const auto& [move, n] : gsearch::testing::perft_divide(state, depth)) {
      std::printf("%s %llu\n", state.move_to_string(move).c_str(),
                  static_cast<unsigned long long>(n));
      leaves += n;
    }
  } else {
    leaves = gsearch::testing::perft(state, depth);
  }
  const double s = watch.seconds();
  std::fprintf(stderr, "perft %d: %.3f s, %.0f leaves/s\n", depth, s, s > 0 ? leaves / s : 0.0);
  std::printf("%llu\n", static_cast<unsigned long long>(leaves));
}

template <class G>
void print_legal(const G& state) {
  gsearch::MoveListOf<G> moves;
  state.legal_moves(moves);
  for (const auto& m : moves) std::printf("%s\n", state.move_to_string(m).c_str());
  std::fprintf(stderr, "%zu legal %s\n", moves.size(),
               std::is_same_v<G, DecisionPosition> ? "decisions" : "moves");
}

}  // namespace

void add_rules_commands(CLI::App& app) {
  {
    struct Opts {
      PositionOptions position;
      int depth = 1;
      bool decisions = false;
      bool divide = false;
    };
    auto opts = std::make_shared<Opts>();
    auto* cmd =
        app.add_subcommand("perft", "Count the move sequences of a given length (bulk counting)");
    opts->position.add_to(*cmd);
    add_number(*cmd, "--depth,-d", opts->depth, "Plies to count", 0, 64)->required();
    cmd->add_flag("--decisions", opts->decisions,
                  "Count single decisions (queen, destination, arrow) instead of whole turns");
    cmd->add_flag("--divide", opts->divide, "Print the count below each first move");
    cmd->callback([opts] {
      const Position pos = opts->position.resolve();
      if (opts->decisions)
        run_perft(DecisionPosition(pos), opts->depth, opts->divide);
      else
        run_perft(pos, opts->depth, opts->divide);
    });
  }
  {
    struct Opts {
      PositionOptions position;
      bool ascii = false;
      bool unicode = false;
    };
    auto opts = std::make_shared<Opts>();
    auto* cmd = app.add_subcommand("show", "Draw a position in the terminal");
    opts->position.add_to(*cmd);
    auto* a = cmd->add_flag("--ascii", opts->ascii, "Plain ASCII: W, B, x, .");
    cmd->add_flag("--unicode", opts->unicode, "Unicode pieces (the default on a UTF-8 terminal)")
        ->excludes(a);
    cmd->callback([opts] {
      const Position pos = opts->position.resolve();
      const bool uni = opts->unicode || (!opts->ascii && terminal_speaks_utf8());
      Bitboard last = 0;
      if (!opts->position.moves.empty()) {
        // Mark the last move: replay all but it to find its squares.
        PositionOptions before = opts->position;
        before.moves.pop_back();
        const Position prev = before.resolve();
        const Move m = prev.parse_move(opts->position.moves.back());
        last = bit(m.from) | bit(m.to) | bit(m.arrow);
      }
      std::fputs(render(pos, uni ? RenderStyle::kUnicode : RenderStyle::kAscii, last).c_str(),
                 stdout);
      std::printf("%s\n", pos.fen().c_str());
    });
  }
  {
    struct Opts {
      PositionOptions position;
      bool decisions = false;
    };
    auto opts = std::make_shared<Opts>();
    auto* cmd = app.add_subcommand("legal", "List the legal moves, one per line");
    opts->position.add_to(*cmd);
    cmd->add_flag("--decisions", opts->decisions,
                  "List the queen decisions (the first of a turn's three)");
    cmd->callback([opts] {
      const Position pos = opts->position.resolve();
      if (opts->decisions)
        print_legal(DecisionPosition(pos));
      else
        print_legal(pos);
    });
  }
}

}  // namespace amazons::cli
