// gomoku/learn/train.hpp — AlphaZero-style self-play training with candidate restriction (the
// Gomoku report's §Baseline, with its hyper-parameters as defaults).
//
// One training batch (the report's "self-play batch"):
//   1. self-play: `threads` games at once, each move a PUCT search (c_puct 5, 400 playouts)
//      over the current network on the candidate set, the tree kept between moves; the move
//      drawn from the root's visit shares at temperature T, mixed with Dirichlet noise,
//      0.75·π + 0.25·Dir(0.3) (AlphaZero_Gomoku's self-play); each position's visit shares π
//      and the game's outcome z from its mover's side become a sample, in all the board's
//      symmetries (8 on a square board);
//   2. the samples enter a replay buffer of the last 10,000;
//   3. update, once the buffer holds a batch: 512 samples drawn at random, 5 epochs of Adam
//      (lr 2e-3 × a multiplier, L2 1e-4) on the loss (z − v)² − π·log p, stopping early when
//      the KL divergence from the policy before the update passes 4 × 0.02; the multiplier
//      is divided by 1.5 when the KL is above 2 × 0.02 and multiplied by 1.5 when below
//      0.02 / 2 (within [0.1, 10]);
//   4. every 50 batches: 10 games against pure MCTS with 1,000 playouts (`mcts`), colours
//      alternating; the win ratio (wins + draws / 2) / games, and the best network kept.
// Every random choice derives from the run's seed and the batch number, so a run resumed
// from a checkpoint goes on as it would have.
//
// A run lives in a directory: checkpoint.bin (network, optimiser, buffer, counters, metrics;
// written atomically every `checkpoint_every` batches and when the run stops), weights.json
// (the current network), best.json (the best evaluated one), metrics.csv, and loss.svg,
// entropy.svg and win_ratio.svg. A run killed at any moment resumes from its last checkpoint.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "amazons/paper/plot.hpp"
#include "gomoku/learn/network.hpp"
#include "gomoku/players/agents.hpp"
#include "gsearch/arena/match.hpp"
#include "gsearch/core/clock.hpp"
#include "gsearch/core/file.hpp"
#include "gsearch/nn/io.hpp"
#include "gsearch/nn/loss.hpp"
#include "gsearch/nn/optim.hpp"

namespace gomoku::learn {

struct TrainConfig {
  int width = 8, height = 8, k = 5;
  Restriction restriction{};  // self-play's candidate set, and the evaluated agent's
  std::vector<nn::Index> trunk = {32, 64, 128};
  std::uint64_t playouts = 400;
  double c_puct = 5;
  std::uint32_t leaf_batch = 8;  // leaves valued per network call in the searches
  double temperature = 1.0;
  double dirichlet_alpha = 0.3, dirichlet_weight = 0.25;
  std::size_t buffer = 10000;
  std::size_t batch = 512;
  int epochs = 5;
  double lr = 2e-3;
  double l2 = 1e-4;
  double kl_target = 0.02;
  std::size_t eval_every = 50;
  std::size_t eval_games = 10;
  std::uint64_t eval_playouts = 1000;
  unsigned threads = 1;  // self-play games per batch, played at once
  std::uint64_t seed = 1;

  [[nodiscard]] nlohmann::json to_json() const {
    return {{"board", std::to_string(width) + "x" + std::to_string(height)},
            {"k", k},
            {"restrict", to_string(restriction)},
            {"trunk", trunk},
            {"playouts", playouts},
            {"c_puct", c_puct},
            {"leaf_batch", leaf_batch},
            {"temperature", temperature},
            {"dirichlet_alpha", dirichlet_alpha},
            {"dirichlet_weight", dirichlet_weight},
            {"buffer", buffer},
            {"batch", batch},
            {"epochs", epochs},
            {"lr", lr},
            {"l2", l2},
            {"kl_target", kl_target},
            {"eval_every", eval_every},
            {"eval_games", eval_games},
            {"eval_playouts", eval_playouts},
            {"threads", threads},
            {"seed", seed}};
  }
  [[nodiscard]] int cells() const noexcept { return width * height; }
};

// One metrics row per training batch.
struct MetricsRow {
  std::size_t batch = 0, games = 0;
  double seconds = 0;      // training wall-clock time so far, across resumes
  double game_length = 0;  // mean plies of this batch's self-play games
  std::size_t buffer = 0;  // samples in the replay buffer
  double loss = NAN, value_loss = NAN, policy_loss = NAN, entropy = NAN, kl = NAN;
  double lr_multiplier = 1;
  double win_ratio = NAN;  // at evaluations
  [[nodiscard]] std::string csv() const {
    char buf[320];
    const auto num = [](double v, const char* fmt) {
      char b[32];
      if (std::isnan(v)) return std::string();
      std::snprintf(b, sizeof b, fmt, v);
      return std::string(b);
    };
    std::snprintf(buf, sizeof buf, "%zu,%zu,%.1f,%.2f,%zu,%s,%s,%s,%s,%s,%.4f,%s", batch, games,
                  seconds, game_length, buffer, num(loss, "%.5f").c_str(),
                  num(value_loss, "%.5f").c_str(), num(policy_loss, "%.5f").c_str(),
                  num(entropy, "%.5f").c_str(), num(kl, "%.6f").c_str(), lr_multiplier,
                  num(win_ratio, "%.3f").c_str());
    return buf;
  }
  static constexpr const char* kHeader =
      "batch,games,seconds,game_length,buffer,loss,value_loss,policy_loss,entropy,kl,lr_multiplier,"
      "win_ratio";
};

// The last `capacity` samples: input planes, visit shares over the cells, outcome.
class ReplayBuffer {
 public:
  ReplayBuffer(std::size_t capacity, int cells) : capacity_(capacity), cells_(cells) {}

  void push(std::span<const float> planes, std::span<const float> pi, float z) {
    const std::size_t row = size_ < capacity_ ? size_++ : next_;
    next_ = (row + 1) % capacity_;
    auto& r = rows_.size() <= row ? rows_.emplace_back() : rows_[row];
    r.assign(planes.begin(), planes.end());
    r.insert(r.end(), pi.begin(), pi.end());
    r.push_back(z);
  }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] const float* planes(std::size_t i) const noexcept { return rows_[i].data(); }
  [[nodiscard]] const float* pi(std::size_t i) const noexcept {
    return rows_[i].data() + cells_ * kPlanes;
  }
  [[nodiscard]] float z(std::size_t i) const noexcept { return rows_[i].back(); }
  [[nodiscard]] std::size_t row_floats() const noexcept {
    return static_cast<std::size_t>(cells_) * (kPlanes + 1) + 1;
  }
  [[nodiscard]] std::size_t next() const noexcept { return next_; }
  void restore_next(std::size_t next) noexcept { next_ = next; }
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }
  [[nodiscard]] const std::vector<float>& row(std::size_t i) const noexcept { return rows_[i]; }
  void push_row(std::vector<float> r) {
    rows_.push_back(std::move(r));
    ++size_;
    next_ = size_ % capacity_;
  }

 private:
  std::size_t capacity_;
  int cells_;
  std::size_t size_ = 0, next_ = 0;
  std::vector<std::vector<float>> rows_;
};

// What one self-play game gives: its positions' planes, visit shares and movers, and result.
struct SelfPlayGame {
  std::vector<std::vector<float>> planes, pi;
  std::vector<Player> mover;
  std::vector<Move> moves;
  int winner = -1;  // -1: a draw
};

// Plays one self-play game with `net` (see the top of this header), seeded by `seed`.
inline SelfPlayGame self_play_game(const nn::PolicyValueConv& net, const TrainConfig& cfg,
                                   std::uint64_t seed) {
  using Expand = AzAgent::Expand;
  AzAgent::Search search(gsearch::mcts::Params{.seed = seed, .batch = cfg.leaf_batch},
                         gsearch::mcts::Puct{.c = cfg.c_puct},
                         Expand{.filter = CandidateFilter{cfg.restriction}}, NetworkEvaluator(net));
  gsearch::Rng rng(gsearch::splitmix64(seed));
  Position pos = Position::empty(cfg.width, cfg.height, cfg.k);
  search.set_root(pos);
  SelfPlayGame game;
  std::vector<float> planes(static_cast<std::size_t>(cfg.cells() * kPlanes));
  std::vector<double> weight;
  while (!pos.is_terminal()) {
    search.run(gsearch::Budget::iters(cfg.playouts));
    const auto policy = search.root_policy();
    encode(pos, planes);
    std::vector<float> pi(static_cast<std::size_t>(cfg.cells()), 0.0f);
    for (const auto& [m, share] : policy)
      pi[static_cast<std::size_t>(action_of(m.cell, cfg.width))] = share;
    game.planes.push_back(planes);
    game.pi.push_back(std::move(pi));
    game.mover.push_back(pos.to_move());
    // The move: visit shares at temperature T, mixed with Dirichlet noise.
    weight.assign(policy.size(), 0.0);
    double total = 0, noise_total = 0;
    for (std::size_t i = 0; i < policy.size(); ++i)
      total += weight[i] =
          policy[i].second > 0 ? std::pow(policy[i].second, 1.0 / cfg.temperature) : 0.0;
    std::vector<double> noise(policy.size());
    for (auto& g : noise) noise_total += g = rng.gamma(cfg.dirichlet_alpha);
    double x = rng.uniform(), acc = 0;
    Move move = policy.back().first;
    for (std::size_t i = 0; i < policy.size(); ++i) {
      acc += (1 - cfg.dirichlet_weight) *
                 (total > 0 ? weight[i] / total : 1.0 / static_cast<double>(policy.size())) +
             cfg.dirichlet_weight * (noise_total > 0 ? noise[i] / noise_total : 0.0);
      if (x < acc) {
        move = policy[i].first;
        break;
      }
    }
    game.moves.push_back(move);
    pos.apply(move);
    search.advance(move);
  }
  game.winner = pos.winner();
  return game;
}

// What one update did.
struct UpdateStats {
  double loss = 0, value_loss = 0, policy_loss = 0, entropy = 0, kl = 0;
  int epochs = 0;
};

// The trainer: the network, its optimiser, the buffer, and the counters of a run.
class Trainer {
 public:
  explicit Trainer(const TrainConfig& cfg)
      : cfg_(cfg),
        init_rng_(cfg.seed),
        net_(network_shape(cfg.width, cfg.height, cfg.trunk), init_rng_),
        params_(net_.parameters()),
        adam_(params_, {.lr = cfg.lr, .weight_decay = cfg.l2}),
        buffer_(cfg.buffer, cfg.cells()) {}

  [[nodiscard]] const TrainConfig& config() const noexcept { return cfg_; }
  [[nodiscard]] nn::PolicyValueConv& network() noexcept { return net_; }
  [[nodiscard]] const ReplayBuffer& buffer() const noexcept { return buffer_; }
  [[nodiscard]] const std::vector<MetricsRow>& metrics() const noexcept { return metrics_; }
  [[nodiscard]] std::size_t batches() const noexcept { return batch_; }
  [[nodiscard]] double best_win_ratio() const noexcept { return best_; }
  [[nodiscard]] double seconds() const noexcept { return seconds_; }

  // One training batch (self-play, update, evaluation when due). Returns its metrics row.
  // `on_evaluation(win_ratio)` is called after an evaluation, e.g. to save the best network.
  MetricsRow run_batch(const std::function<void(double)>& on_evaluation = {}) {
    gsearch::Stopwatch watch;
    Eigen::setNbThreads(1);
    ++batch_;
    // 1. Self-play, one game per thread.
    std::vector<SelfPlayGame> games(std::max(1u, cfg_.threads));
    {
      std::vector<std::thread> workers;
      std::exception_ptr failure;
      std::mutex lock;
      for (std::size_t t = 0; t < games.size(); ++t)
        workers.emplace_back([&, t] {
          try {
            games[t] = self_play_game(net_, cfg_, derive(batch_, t));
          } catch (...) {
            const std::lock_guard guard(lock);
            failure = std::current_exception();
          }
        });
      for (auto& w : workers) w.join();
      if (failure) std::rethrow_exception(failure);
    }
    MetricsRow row;
    double plies = 0;
    std::vector<float> planes(static_cast<std::size_t>(cfg_.cells() * kPlanes)),
        pi(static_cast<std::size_t>(cfg_.cells()));
    for (const auto& g : games) {
      plies += static_cast<double>(g.moves.size());
      for (std::size_t i = 0; i < g.planes.size(); ++i) {
        const float z = g.winner < 0 ? 0.0f : g.winner == g.mover[i] ? 1.0f : -1.0f;
        for (int s = 0; s < symmetry_count(cfg_.width, cfg_.height); ++s) {
          apply_symmetry(s, cfg_.width, cfg_.height, kPlanes, g.planes[i], planes);
          apply_symmetry(s, cfg_.width, cfg_.height, 1, g.pi[i], pi);
          buffer_.push(planes, pi, z);
        }
      }
    }
    games_ += games.size();
    row.game_length = plies / static_cast<double>(games.size());
    // 2. An update once the buffer holds a batch: its matrix products on `threads` cores
    // (Eigen's, when it is built with OpenMP; self-play ran one search per thread instead).
    if (buffer_.size() >= cfg_.batch) {
      Eigen::setNbThreads(static_cast<int>(std::max(1u, cfg_.threads)));
      const UpdateStats u = update();
      Eigen::setNbThreads(1);
      row.loss = u.loss;
      row.value_loss = u.value_loss;
      row.policy_loss = u.policy_loss;
      row.entropy = u.entropy;
      row.kl = u.kl;
    }
    // 3. Evaluation.
    if (cfg_.eval_every && batch_ % cfg_.eval_every == 0) {
      row.win_ratio = evaluate();
      best_ = std::max(best_, row.win_ratio);
      if (on_evaluation) on_evaluation(row.win_ratio);
    }
    seconds_ += watch.seconds();
    row.batch = batch_;
    row.games = games_;
    row.seconds = seconds_;
    row.buffer = buffer_.size();
    row.lr_multiplier = lr_multiplier_;
    metrics_.push_back(row);
    return row;
  }

  // The win ratio of the current network (AlphaZero's search, cfg.playouts, on the candidate
  // set) against pure MCTS with cfg.eval_playouts, over cfg.eval_games games, colours
  // alternating: (wins + draws / 2) / games.
  [[nodiscard]] double evaluate() {
    const AzAgent::Params az{.weights = {},
                             .playouts = cfg_.playouts,
                             .ms = 0,
                             .c = cfg_.c_puct,
                             .batch = cfg_.leaf_batch,
                             .top_k = 0,
                             .restriction = cfg_.restriction};
    MctsAgent::Params pure;
    pure.playouts = cfg_.eval_playouts;
    const auto records = gsearch::arena::play_match(
        Position::empty(cfg_.width, cfg_.height, cfg_.k),
        [&] { return AgentHandle(std::make_unique<AzAgent>(az, net_)); },
        [&] { return AgentHandle(std::make_unique<MctsAgent>(pure)); },
        {.games = cfg_.eval_games,
         .threads = std::max(1u, cfg_.threads),
         .seed = derive(batch_, 1000),
         .opening_plies = 0});
    const auto s = gsearch::arena::summarize(records);
    return s.score / static_cast<double>(s.games);
  }

  // The checkpoint: everything a resumed run needs, as one binary blob.
  [[nodiscard]] std::string checkpoint() {
    std::string out = kMagic;
    nlohmann::json meta = {{"config", cfg_.to_json()},
                           {"batch", batch_},
                           {"games", games_},
                           {"seconds", seconds_},
                           {"lr_multiplier", lr_multiplier_},
                           {"best_win_ratio", best_},
                           {"adam_steps", adam_.steps()},
                           {"buffer_next", buffer_.next()}};
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& r : metrics_) rows.push_back(r.csv());
    meta["metrics"] = rows;
    put_string(out, meta.dump());
    const auto& m = adam_.first_moments();
    const auto& v = adam_.second_moments();
    for (std::size_t i = 0; i < params_.size(); ++i) {
      put_floats(out, params_[i].value->data(), params_[i].value->size());
      put_floats(out, m[i].data(), m[i].size());
      put_floats(out, v[i].data(), v[i].size());
    }
    put_u64(out, buffer_.size());
    for (std::size_t i = 0; i < buffer_.size(); ++i)
      put_floats(out, buffer_.row(i).data(), static_cast<nn::Index>(buffer_.row(i).size()));
    return out;
  }

  // Restores a checkpoint() of a run with the same configuration. Throws std::runtime_error
  // naming what does not match or is damaged; the trainer is then unusable.
  void restore(std::string_view blob, const std::string& source) {
    const auto bad = [&](const std::string& why) {
      return std::runtime_error(source + ": " + why);
    };
    std::size_t at = 0;
    if (blob.substr(0, std::strlen(kMagic)) != kMagic)
      throw bad("not a gomoku training checkpoint");
    at = std::strlen(kMagic);
    const std::string meta_text = get_string(blob, at, bad);
    const nlohmann::json meta = nlohmann::json::parse(meta_text, nullptr, false);
    if (meta.is_discarded() || !meta.is_object() || !meta.contains("config"))
      throw bad("damaged (its header)");
    const nlohmann::json want = cfg_.to_json();
    for (const auto& [key, value] : want.items())
      if (!meta["config"].contains(key) || meta["config"][key] != value)
        throw bad(
            "holds a run with another configuration (" + key + " " +
            (meta["config"].contains(key) ? meta["config"][key].dump() : std::string("missing")) +
            ", asked for " + value.dump() + "); give the same options or another --out");
    try {
      batch_ = meta.at("batch").get<std::size_t>();
      games_ = meta.at("games").get<std::size_t>();
      seconds_ = meta.at("seconds").get<double>();
      lr_multiplier_ = meta.at("lr_multiplier").get<double>();
      best_ = meta.at("best_win_ratio").get<double>();
      adam_.set_steps(meta.at("adam_steps").get<long>());
      metrics_.clear();
      for (const auto& r : meta.at("metrics")) metrics_.push_back(parse_row(r.get<std::string>()));
      const std::size_t next = meta.at("buffer_next").get<std::size_t>();
      auto& m = adam_.first_moments();
      auto& v = adam_.second_moments();
      for (std::size_t i = 0; i < params_.size(); ++i) {
        get_floats(blob, at, params_[i].value->data(), params_[i].value->size(), bad);
        get_floats(blob, at, m[i].data(), m[i].size(), bad);
        get_floats(blob, at, v[i].data(), v[i].size(), bad);
      }
      const std::uint64_t n = get_u64(blob, at, bad);
      if (n > cfg_.buffer) throw bad("damaged (a buffer larger than its capacity)");
      buffer_ = ReplayBuffer(cfg_.buffer, cfg_.cells());
      for (std::uint64_t i = 0; i < n; ++i) {
        std::vector<float> r(buffer_.row_floats());
        get_floats(blob, at, r.data(), static_cast<nn::Index>(r.size()), bad);
        buffer_.push_row(std::move(r));
      }
      buffer_.restore_next(next % cfg_.buffer);
    } catch (const nlohmann::json::exception&) {
      throw bad("damaged (its header's fields)");
    }
    if (at != blob.size()) throw bad("damaged (bytes after the end)");
  }

 private:
  static constexpr const char* kMagic = "gsearch gomoku training checkpoint 1\n";

  [[nodiscard]] std::uint64_t derive(std::size_t batch, std::size_t k) const {
    std::uint64_t s = cfg_.seed * 0x9e3779b97f4a7c15ULL ^ (batch * 0xbf58476d1ce4e5b9ULL + k);
    return gsearch::splitmix64(s);
  }

  UpdateStats update() {
    const std::size_t b = cfg_.batch, cells = static_cast<std::size_t>(cfg_.cells());
    gsearch::Rng rng(derive(batch_, 2000));
    // Draw b distinct samples (a partial Fisher–Yates shuffle).
    index_.resize(buffer_.size());
    for (std::size_t i = 0; i < index_.size(); ++i) index_[i] = i;
    for (std::size_t i = 0; i < b; ++i)
      std::swap(index_[i], index_[i + rng.below(index_.size() - i)]);
    x_.resize(static_cast<nn::Index>(b), static_cast<nn::Index>(cells * kPlanes));
    pi_.resize(static_cast<nn::Index>(b), static_cast<nn::Index>(cells));
    mask_.resize(static_cast<nn::Index>(b), static_cast<nn::Index>(cells));
    z_.resize(static_cast<nn::Index>(b), 1);
    for (std::size_t r = 0; r < b; ++r) {
      const std::size_t i = index_[r];
      const auto row = static_cast<nn::Index>(r);
      std::copy(buffer_.planes(i), buffer_.planes(i) + cells * kPlanes, x_.row(row).data());
      std::copy(buffer_.pi(i), buffer_.pi(i) + cells, pi_.row(row).data());
      for (std::size_t a = 0; a < cells; ++a)
        mask_(row, static_cast<nn::Index>(a)) =
            1.0f - buffer_.planes(i)[a * kPlanes] - buffer_.planes(i)[a * kPlanes + 1];
      z_(row, 0) = buffer_.z(i);
    }
    // One forward pass serves twice: the KL divergence of the epoch before it, and the
    // gradients of the epoch after it (the weights are the same), so an update of E epochs
    // takes E + 1 forward passes, not 2E + 1.
    nn::Matrix dlogits, dvalues;
    nn::CrossEntropy<float> ce;
    float mse = 0;
    const auto forward = [&](nn::Matrix& probs) {
      const auto out = net_.forward(x_);
      ce = nn::softmax_cross_entropy<float>(out.logits, pi_, mask_, dlogits, &probs);
      mse = nn::mse_loss<float>(out.values, z_, dvalues);
    };
    forward(old_probs_);
    UpdateStats u;
    for (int e = 0; e < cfg_.epochs; ++e) {
      adam_.set_lr(cfg_.lr * lr_multiplier_);
      adam_.zero_grad();
      net_.backward(dlogits, dvalues);
      adam_.step();
      u.value_loss = mse;
      u.policy_loss = ce.loss;
      u.loss = mse + ce.loss;
      u.entropy = ce.entropy;
      ++u.epochs;
      forward(new_probs_);
      double kl = 0;
      for (nn::Index k = 0; k < old_probs_.size(); ++k) {
        const double p = old_probs_.data()[k], q = new_probs_.data()[k];
        if (p > 0) kl += p * (std::log(p + 1e-10) - std::log(q + 1e-10));
      }
      u.kl = kl / static_cast<double>(b);
      if (u.kl > 4 * cfg_.kl_target) break;
    }
    if (u.kl > 2 * cfg_.kl_target && lr_multiplier_ > 0.1)
      lr_multiplier_ /= 1.5;
    else if (u.kl < cfg_.kl_target / 2 && lr_multiplier_ < 10)
      lr_multiplier_ *= 1.5;
    return u;
  }

  static MetricsRow parse_row(const std::string& line) {
    MetricsRow r;
    std::vector<std::string> f;
    std::stringstream in(line);
    for (std::string x; std::getline(in, x, ',');) f.push_back(x);
    while (f.size() < 12) f.emplace_back();
    const auto d = [](const std::string& s) { return s.empty() ? NAN : std::stod(s); };
    r.batch = std::stoul(f[0]);
    r.games = std::stoul(f[1]);
    r.seconds = d(f[2]);
    r.game_length = d(f[3]);
    r.buffer = std::stoul(f[4]);
    r.loss = d(f[5]);
    r.value_loss = d(f[6]);
    r.policy_loss = d(f[7]);
    r.entropy = d(f[8]);
    r.kl = d(f[9]);
    r.lr_multiplier = d(f[10]);
    r.win_ratio = d(f[11]);
    return r;
  }

  static void put_u64(std::string& out, std::uint64_t v) {
    out.append(reinterpret_cast<const char*>(&v), 8);
  }
  static void put_string(std::string& out, const std::string& s) {
    put_u64(out, s.size());
    out += s;
  }
  static void put_floats(std::string& out, const float* p, nn::Index n) {
    put_u64(out, static_cast<std::uint64_t>(n));
    out.append(reinterpret_cast<const char*>(p), static_cast<std::size_t>(n) * sizeof(float));
  }
  template <class Bad>
  static std::uint64_t get_u64(std::string_view blob, std::size_t& at, const Bad& bad) {
    if (blob.size() - at < 8) throw bad("truncated");
    std::uint64_t v;
    std::memcpy(&v, blob.data() + at, 8);
    at += 8;
    return v;
  }
  template <class Bad>
  static std::string get_string(std::string_view blob, std::size_t& at, const Bad& bad) {
    const std::uint64_t n = get_u64(blob, at, bad);
    if (blob.size() - at < n) throw bad("truncated");
    std::string s(blob.substr(at, n));
    at += n;
    return s;
  }
  template <class Bad>
  static void get_floats(std::string_view blob, std::size_t& at, float* p, nn::Index n,
                         const Bad& bad) {
    if (get_u64(blob, at, bad) != static_cast<std::uint64_t>(n))
      throw bad("damaged (a tensor of another size)");
    const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
    if (blob.size() - at < bytes) throw bad("truncated");
    std::memcpy(p, blob.data() + at, bytes);
    at += bytes;
  }

  TrainConfig cfg_;
  gsearch::Rng init_rng_;  // the network's initial weights
  nn::PolicyValueConv net_;
  nn::ParamList params_;
  nn::Adam adam_;
  ReplayBuffer buffer_;
  std::vector<MetricsRow> metrics_;
  std::size_t batch_ = 0, games_ = 0;
  double seconds_ = 0, lr_multiplier_ = 1, best_ = 0;
  std::vector<std::size_t> index_;
  nn::Matrix x_, pi_, mask_, z_, old_probs_, new_probs_;
};

// The metrics as CSV, and the curves as SVG charts, in `dir`.
inline void write_metrics(const std::filesystem::path& dir, const std::vector<MetricsRow>& rows) {
  std::string csv = std::string(MetricsRow::kHeader) + "\n";
  for (const auto& r : rows) csv += r.csv() + "\n";
  gsearch::write_file_atomically(dir / "metrics.csv", csv);
  std::vector<double> loss, entropy, win;
  for (const auto& r : rows) {
    if (!std::isnan(r.loss)) loss.push_back(r.loss);
    if (!std::isnan(r.entropy)) entropy.push_back(r.entropy);
    if (!std::isnan(r.win_ratio)) win.push_back(r.win_ratio);
  }
  using amazons::plot::Series;
  if (!loss.empty()) {
    gsearch::write_file_atomically(
        dir / "loss.svg", amazons::plot::line_chart(
                              "training loss", "update", "loss",
                              {Series{"loss", loss, "#1f77b4", 1.0},
                               Series{"moving average (20)",
                                      amazons::plot::moving_average(loss, 20), "#d62728", 2.0}}));
    gsearch::write_file_atomically(
        dir / "entropy.svg",
        amazons::plot::line_chart("policy entropy", "update", "entropy",
                                  {Series{"entropy", entropy, "#2ca02c", 1.5}}));
  }
  if (!win.empty())
    gsearch::write_file_atomically(
        dir / "win_ratio.svg",
        amazons::plot::line_chart("win ratio against pure MCTS", "evaluation", "win ratio",
                                  {Series{"win ratio", win, "#ff7f0e", 2.0}}));
}

}  // namespace gomoku::learn
