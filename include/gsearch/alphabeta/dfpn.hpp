// gsearch/alphabeta/dfpn.hpp — depth-first proof-number search (df-pn), an exact solver.
//
// Proof-number search (Allis 1994) grows the tree where a proof looks cheapest. Every node n
// carries two numbers, for the player to move at the root (the attacker): pn(n), a measure of
// how many more leaves must be proven to show that the attacker wins from n, and dn(n), to
// show that the attacker does not. A proven node has (0, ∞), a disproven one (∞, 0). At a node
// where the attacker moves (OR), pn = min over the children, dn = sum; where the defender moves
// (AND), pn = sum, dn = min. The search keeps descending into the child with the smallest
// number that matters (pn at OR nodes, dn at AND nodes).
//
// df-pn (Nagai 2002) does the same depth-first with thresholds: mid(n, tp, td) searches below
// n until pn(n) >= tp or dn(n) >= td, keeping every node's numbers in a transposition table
// instead of a tree in memory, and entering the best child with thresholds that send control
// back as soon as another child becomes better (its own threshold widened by the 1 + ε trick of
// Pawlewicz & Lew 2007, which cuts the re-expansions of two children that keep swapping).
//
// Weak proof numbers (Ueda, Hashimoto, Hashimoto & Iida 2008; DfpnParams::weak, the default)
// replace the sum by max + (the number of children not yet decided − 1). In a game with many
// transpositions the sum counts a position once for every path to it — two moves played in
// either order reach the same position — so sums grow with the paths, not with the work left,
// and the search turns away from lines that are nearly proven. On small Amazons boards, with
// the evaluation numbering below, they cut the expansions several times over (docs/amazons.md).
//
// What the search uses from the game, when the game offers it (game.hpp):
//   proven_outcome()  exact knowledge: a position it decides is a leaf, proven or disproven;
//   essential_moves() the moves to search, dominated ones left out;
//   evaluate()        the first numbers of a new leaf (DfpnInit::kEvaluation, the default;
//                     df-pn+, Nagai & Imai 2002): a leaf that looks good for the attacker
//                     starts with a small pn and a large dn, 1 + w (1 − v) and 1 + w (1 + v)
//                     for the attacker's view v in [-1, 1];
//   count_moves()     or its mobility sets them (DfpnInit::kMobility, and kEvaluation's
//                     choice when the game has no evaluate()): a leaf where the attacker moves
//                     starts at (1, n), one where the defender moves at (n, 1), with n its
//                     number of legal moves — one good move proves the first, all n must be
//                     refuted to disprove it; with neither, every new leaf starts at (1, 1).
// Both change how fast a proof is found, never what is proven: a proven position is one whose
// every line the search allows ends in a win for the attacker (a terminal state, or a position
// the game proves).
//
// The attacker's opponent may draw: a disproof then means "no forced win", which in a game
// without draws is a loss. Positions are told apart by their 64-bit hashes (and the table
// checks the whole hash), so, as with any transposition table, two positions with the same
// hash would be confused; with 64 bits and the proofs gsearch runs (below 10^10 probes), the
// expected number of such collisions is below 10^-8.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "gsearch/core/budget.hpp"
#include "gsearch/core/game.hpp"
#include "gsearch/core/large_array.hpp"

namespace gsearch::alphabeta {

// How a new leaf's proof and disproof numbers are set (see the header comment). A choice the
// game cannot serve falls back: evaluation to mobility, mobility to (1, 1).
enum class DfpnInit : std::uint8_t { kMobility, kEvaluation, kUnit };

struct DfpnParams {
  std::size_t tt_megabytes = 64;  // size of the table of (pn, dn); a power of two of buckets
  double epsilon = 0.25;          // the 1 + ε trick: a child's threshold is (1 + ε)·second + 1
  DfpnInit init = DfpnInit::kEvaluation;
  bool weak = true;  // weak proof numbers: max + (undecided − 1) where plain df-pn sums
  // With DfpnInit::kEvaluation, a new node's (pn, dn) from the game's evaluation v in [-1, 1]
  // for the attacker: with γ = eval_gamma = 0, (1 + w(1 - v), 1 + w(1 + v)); with γ > 0,
  // (1 + w·e^(-γ atanh v), 1 + w·e^(γ atanh v)). w = eval_weight; w = 0 starts every node at
  // (1, 1), as plain df-pn does.
  double eval_weight = 150.0;
  double eval_gamma = 0.0;
};

template <MoveType Move>
struct DfpnResult {
  bool proven_win = false;   // the player to move at the root wins against any defence
  bool proven_loss = false;  // they cannot force a win (a loss, in a game without draws)
  bool has_move = false;     // a winning move, when proven_win
  Move best{};               // that move
  std::uint64_t nodes = 0;   // positions expanded (children generated), revisits included
  double seconds = 0.0;
};

template <Game G>
class Dfpn {
 public:
  using Move = typename G::Move;

  explicit Dfpn(const DfpnParams& params = {}) : params_(params) { resize(params.tt_megabytes); }

  // A table of 2^k buckets (three entries each) taking at most `megabytes` MiB.
  void resize(std::size_t megabytes) {
    std::size_t n = 1024;
    while (n * 2 * sizeof(Bucket) <= megabytes * 1024 * 1024) n *= 2;
    buckets_.reset(n);  // zero bytes: every entry empty
    mask_ = n - 1;
  }
  void clear() { buckets_.clear(); }

  // Proves or disproves that the player to move at `root` wins, or stops at the budget (nodes
  // or time; then neither flag is set). The table is kept between calls, so solving a
  // position again, or one of its descendants for the same player, reuses earlier work.
  DfpnResult<Move> solve(const G& root, const Budget& budget = {}) {
    DfpnResult<Move> result;
    tracker_.emplace(budget, 1);
    stopped_ = false;
    root_has_best_ = false;
    nodes_ = 0;
    attacker_ = root.to_move();
    salt_ = attacker_ == 0 ? 0 : 0x9e3779b97f4a7c15ULL;
    arena_top_ = 0;
    if (root.is_terminal()) {
      result.proven_win = root.result(attacker_) > 0;
      result.proven_loss = !result.proven_win;
      return result;
    }
    const Numbers n = mid(root, kInf, kInf);
    result.proven_win = n.pn == 0;
    result.proven_loss = n.dn == 0;
    result.has_move = result.proven_win && root_has_best_;
    result.best = root_best_;
    result.nodes = nodes_;
    result.seconds = tracker_->elapsed();
    return result;
  }

 private:
  using Number = std::uint32_t;
  static constexpr Number kInf = std::numeric_limits<Number>::max();  // proven / disproven
  static constexpr Number kMax = kInf - 1;  // sums saturate here, never at kInf

  struct Numbers {
    Number pn, dn;
  };
  // 20 bytes; (pn, dn) = (0, 0) marks an empty entry (no position has both).
  struct Entry {
    std::uint32_t key_lo = 0, key_hi = 0;
    Number pn = 0, dn = 0;
    std::uint32_t work = 0;  // expansions spent below this position (saturating)
    [[nodiscard]] bool holds(std::uint64_t key) const noexcept {
      return key_lo == static_cast<std::uint32_t>(key) && key_hi == (key >> 32) && (pn | dn) != 0;
    }
  };
  struct alignas(64) Bucket {
    Entry entries[3];
  };
  static_assert(sizeof(Bucket) == 64);
  struct Child {
    Move move;
    Numbers numbers;
    std::uint64_t key;
  };

  static Number add(Number a, Number b) noexcept {
    if (a == kInf || b == kInf) return kInf;
    return a + b < a || a + b > kMax ? kMax : a + b;
  }

  [[nodiscard]] std::uint64_t key_of(const G& s) const noexcept { return s.hash() ^ salt_; }
  void prefetch(std::uint64_t key) const noexcept { __builtin_prefetch(&buckets_[key & mask_]); }

  [[nodiscard]] bool lookup(std::uint64_t key, Numbers& out) const noexcept {
    for (const Entry& e : buckets_[key & mask_].entries)
      if (e.holds(key)) {
        out = {e.pn, e.dn};
        return true;
      }
    return false;
  }

  // Keeps the entry of this position, else replaces an empty entry, else the one with the
  // least work below it (small subtrees are cheap to search again).
  void store(std::uint64_t key, Numbers n, std::uint64_t work) noexcept {
    Bucket& b = buckets_[key & mask_];
    Entry* victim = &b.entries[0];
    for (Entry& e : b.entries) {
      if (e.holds(key) || (e.pn | e.dn) == 0) {
        victim = &e;
        break;
      }
      if (e.work < victim->work) victim = &e;
    }
    auto w = static_cast<std::uint32_t>(std::min<std::uint64_t>(work, 0xffffffffu));
    if (victim->holds(key)) w = std::max(w, victim->work);
    *victim = {static_cast<std::uint32_t>(key), static_cast<std::uint32_t>(key >> 32), n.pn, n.dn,
               w};
  }

  // The numbers of a position not being expanded: from the table, or those of a new leaf.
  Numbers leaf(const G& s, std::uint64_t key) {
    Numbers n;
    if (lookup(key, n)) return n;
    const bool attacker_moves = s.to_move() == attacker_;
    if (s.is_terminal()) {
      const double r = s.result(attacker_);
      return r > 0 ? Numbers{0, kInf} : Numbers{kInf, 0};
    }
    if constexpr (ProvableGame<G>) {
      if (const int outcome = s.proven_outcome(); outcome != 0) {
        n = (outcome > 0) == attacker_moves ? Numbers{0, kInf} : Numbers{kInf, 0};
        store(key, n, 0);
        return n;
      }
    }
    if constexpr (EvaluableGame<G>) {
      if (params_.init == DfpnInit::kEvaluation && params_.eval_weight > 0) {
        double v = std::clamp(static_cast<double>(s.evaluate()), -1.0, 1.0);
        if (!attacker_moves) v = -v;
        if (params_.eval_gamma > 0) {
          const double c = std::clamp(v, -1 + 1e-12, 1 - 1e-12);
          const double r = std::pow((1 - c) / (1 + c), params_.eval_gamma / 2);  // e^{-γ atanh v}
          const auto f = [](double x) {
            return x >= 1e9 ? Number{1000000000} : static_cast<Number>(x + 0.5);
          };
          n = {1 + f(params_.eval_weight * r), 1 + f(params_.eval_weight / r)};
        } else {
          n = {1 + static_cast<Number>(params_.eval_weight * (1 - v) + 0.5),
               1 + static_cast<Number>(params_.eval_weight * (1 + v) + 0.5)};
        }
        store(key, n, 0);  // kept until something that cost work needs the slot
        return n;
      }
    }
    if constexpr (CountableGame<G>) {
      if (params_.init == DfpnInit::kMobility ||
          (params_.init == DfpnInit::kEvaluation && !EvaluableGame<G>)) {
        const auto moves = static_cast<std::uint64_t>(s.count_moves());
        const Number m = moves >= kMax ? kMax : static_cast<Number>(moves);
        n = attacker_moves ? Numbers{1, m} : Numbers{m, 1};
        store(key, n, 0);
        return n;
      }
    }
    return {1, 1};
  }

  // Searches below `state` until pn >= tp or dn >= td (or the budget ends); returns its numbers.
  Numbers mid(const G& state, Number tp, Number td) {
    ++nodes_;
    const std::uint64_t nodes_before = nodes_;
    if ((nodes_ & 63) == 0 && tracker_->exhausted(0, nodes_)) stopped_ = true;
    const bool or_node = state.to_move() == attacker_;
    const bool root = arena_top_ == 0;

    // Children: first every key, prefetching its bucket, then the numbers.
    MoveListOf<G> moves;
    if constexpr (ReducibleGame<G>)
      state.essential_moves(moves);
    else
      state.legal_moves(moves);
    const std::size_t n = moves.size();
    const std::size_t base = arena_top_;
    if (arena_.size() < base + n) arena_.resize(base + n + G::max_moves);
    arena_top_ = base + n;
    for (std::size_t i = 0; i < n; ++i) {
      G child = state;
      child.apply(moves[i]);
      arena_[base + i] = {moves[i], {}, key_of(child)};
      prefetch(arena_[base + i].key);
    }
    for (std::size_t i = 0; i < n; ++i) {
      G child = state;
      child.apply(moves[i]);
      arena_[base + i].numbers = leaf(child, arena_[base + i].key);
    }

    Numbers result{};
    for (;;) {
      // At an OR node the attacker picks: pn = min, dn = sum; at an AND node the reverse. `own`
      // is the number minimised here, `other` the one summed (or, with weak numbers, the
      // largest plus one for every other child not yet decided: 0 marks a decided one).
      Number own = kInf, other = 0, second = kInf, largest = 0, open = 0;
      std::size_t best = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const Numbers c = arena_[base + i].numbers;
        const Number mine = or_node ? c.pn : c.dn;
        const Number theirs = or_node ? c.dn : c.pn;
        other = add(other, theirs);
        largest = std::max(largest, theirs);
        open += theirs != 0;
        if (mine < own) {
          second = own;
          own = mine;
          best = i;
        } else if (mine < second) {
          second = mine;
        }
      }
      if (params_.weak && other != kInf && open > 0) other = add(largest, open - 1);
      result = or_node ? Numbers{own, other} : Numbers{other, own};
      if (result.pn >= tp || result.dn >= td || stopped_) {
        if (root && result.pn == 0) {
          root_has_best_ = true;
          root_best_ = arena_[base + best].move;
        }
        break;
      }
      // The best child's thresholds: its own number may grow to just past the second best
      // (widened by 1 + ε) but not past ours; the summed one may take what the others leave.
      const Number own_th = or_node ? tp : td;
      const Number other_th = or_node ? td : tp;
      Number child_own = own_th;
      if (second < kInf) {
        const double widened = static_cast<double>(second) * (1.0 + params_.epsilon) + 1.0;
        const Number w = widened >= kMax ? kMax : static_cast<Number>(widened);
        child_own = std::min(own_th, std::max(w, add(second, 1)));
      }
      const Numbers c = arena_[base + best].numbers;
      const Number child_other =
          other_th == kInf ? kInf : add(other_th - other, or_node ? c.dn : c.pn);
      G child = state;
      child.apply(arena_[base + best].move);
      arena_[base + best].numbers =
          or_node ? mid(child, child_own, child_other) : mid(child, child_other, child_own);
    }
    arena_top_ = base;
    store(key_of(state), result, nodes_ - nodes_before + 1);
    return result;
  }

  DfpnParams params_;
  LargeArray<Bucket> buckets_;  // on large pages where the system offers them
  std::size_t mask_ = 0;
  std::vector<Child> arena_;  // the children of every node on the current path, stacked
  std::size_t arena_top_ = 0;
  std::optional<BudgetTracker> tracker_;
  bool stopped_ = false;
  std::uint64_t nodes_ = 0;
  Player attacker_ = 0;
  std::uint64_t salt_ = 0;  // keys differ by attacker: the numbers are the attacker's
  bool root_has_best_ = false;
  Move root_best_{};
};

}  // namespace gsearch::alphabeta
