// gomoku/learn/network.hpp — Gomoku positions as network input, the board's symmetries, and
// the policy-value network as MCTS's prior-value evaluator.
//
// Input: four planes over the board (the report's §Baseline, AlphaZero_Gomoku's encoding), in
// gsearch::nn's channels-last layout, (row · width + column) · 4 + plane:
//   0  the stones of the player to move        2  the last stone placed (if known)
//   1  the opponent's stones                   3  all ones when Black is to move
// Actions are the cells, row · width + column (row 0 is rank 1): the policy head has one
// logit per cell. Rows of the input, outputs and targets are transformed together by the
// board's symmetries: 8 on a square board (rotations and reflections), 4 otherwise.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "gomoku/rules/position.hpp"
#include "gsearch/core/file.hpp"
#include "gsearch/nn/io.hpp"
#include "gsearch/nn/policy_value.hpp"

namespace gomoku::learn {

namespace nn = gsearch::nn;

inline constexpr int kPlanes = 4;

// The action of a cell, and the cell of an action, on a board `width` wide.
[[nodiscard]] constexpr int action_of(int cell, int width) noexcept {
  return row_of(cell) * width + col_of(cell);
}
[[nodiscard]] constexpr int cell_of(int action, int width) noexcept {
  return cell_at(action / width, action % width);
}

// Writes the four planes of `pos` into `out` (width · height · 4 floats).
inline void encode(const Position& pos, std::span<float> out) {
  const int w = pos.width(), h = pos.height();
  const Player me = pos.to_move();
  const float black = me == kBlack ? 1.0f : 0.0f;
  const auto last = pos.last_move();
  for (int r = 0; r < h; ++r)
    for (int c = 0; c < w; ++c) {
      const int cell = cell_at(r, c);
      float* p = out.data() + static_cast<std::size_t>((r * w + c) * kPlanes);
      p[0] = pos.stones(me).test(cell) ? 1.0f : 0.0f;
      p[1] = pos.stones(gsearch::opponent(me)).test(cell) ? 1.0f : 0.0f;
      p[2] = last && last->cell == cell ? 1.0f : 0.0f;
      p[3] = black;
    }
}

// The number of symmetries of a width × height board: 8 when square, else 4.
[[nodiscard]] constexpr int symmetry_count(int width, int height) noexcept {
  return width == height ? 8 : 4;
}

// Where symmetry `s` (0 = identity) sends the cell at (row, col) of a width × height board.
// On a square board s = 4·flip + turns (quarter turns, then a left-right flip); otherwise
// s ∈ {0: identity, 1: left-right flip, 2: up-down flip, 3: half turn}.
[[nodiscard]] constexpr std::pair<int, int> transform(int s, int row, int col, int width,
                                                      int height) noexcept {
  if (width != height) {
    if (s & 1) col = width - 1 - col;
    if (s & 2) row = height - 1 - row;
    return {row, col};
  }
  const int n = width;
  for (int t = 0; t < (s & 3); ++t) {  // a quarter turn: (r, c) → (c, n − 1 − r)
    const int r = row;
    row = col;
    col = n - 1 - r;
  }
  if (s & 4) col = n - 1 - col;
  return {row, col};
}

// Applies symmetry `s` to per-cell data with `channels` values per cell (planes: 4; a policy
// or a mask: 1): out[transform(cell)] = in[cell].
inline void apply_symmetry(int s, int width, int height, int channels, std::span<const float> in,
                           std::span<float> out) {
  for (int r = 0; r < height; ++r)
    for (int c = 0; c < width; ++c) {
      const auto [tr, tc] = transform(s, r, c, width, height);
      const float* src = in.data() + static_cast<std::size_t>((r * width + c) * channels);
      float* dst = out.data() + static_cast<std::size_t>((tr * width + tc) * channels);
      std::copy(src, src + channels, dst);
    }
}

// The network of a width × height board with the given trunk (3×3 layers' channels), from
// `rng`; the heads as AlphaZero_Gomoku's (4 policy channels, 2 value channels, 64 hidden).
[[nodiscard]] inline nn::PolicyValueConvShape network_shape(int width, int height,
                                                            std::vector<nn::Index> trunk) {
  return {.planes = kPlanes, .height = height, .width = width, .trunk = std::move(trunk)};
}

// The shape of the policy-value conv network whose weights are in `path` (save_weights()):
// the trunk's channels and the heads' sizes, read from the file's parameter shapes; the
// board's size is the caller's to set. The file's text goes to `text` when given. Throws
// nn::WeightFileError naming the file and the problem.
[[nodiscard]] inline nn::PolicyValueConvShape load_network_shape(const std::filesystem::path& path,
                                                                 std::string* text = nullptr) {
  std::string contents;
  try {
    contents = gsearch::read_file(path, nn::kMaxWeightFileBytes);
  } catch (const gsearch::FileError& e) {
    throw nn::WeightFileError(path, "cannot read the file: " + e.reason());
  }
  const nlohmann::json j = nlohmann::json::parse(contents, nullptr, /*allow_exceptions=*/false);
  nn::PolicyValueConvShape shape = network_shape(0, 0, {});
  if (j.is_object() && j.contains("parameters") && j["parameters"].is_array()) {
    // The rows of "trunk.L.W" are 9 · the layer's input channels, its columns its channels.
    const auto dims = [&](const std::string& name) -> std::pair<nn::Index, nn::Index> {
      for (const auto& p : j["parameters"])
        if (p.is_object() && p.contains("name") && p["name"] == name && p.contains("shape") &&
            p["shape"].is_array() && p["shape"].size() == 2 && p["shape"][0].is_number_integer() &&
            p["shape"][1].is_number_integer())
          return {p["shape"][0].get<nn::Index>(), p["shape"][1].get<nn::Index>()};
      return {0, 0};
    };
    for (int l = 0;; ++l) {
      const auto [rows, cols] = dims("trunk." + std::to_string(l) + ".W");
      if (rows <= 0 || cols <= 0 || cols > 1024) break;
      shape.trunk.push_back(cols);
    }
    if (const auto [r, c] = dims("policy.conv.W"); c > 0 && c <= 64) shape.policy_channels = c;
    if (const auto [r, c] = dims("value.conv.W"); c > 0 && c <= 64) shape.value_channels = c;
    if (const auto [r, c] = dims("value.fc1.W"); c > 0 && c <= 4096) shape.value_hidden = c;
  }
  if (shape.trunk.empty())
    throw nn::WeightFileError(path, "not a policy-value conv network's weights (no trunk.0.W)");
  if (text) *text = std::move(contents);
  return shape;
}

// The network in `path` for a width × height board: its shape from the file
// (load_network_shape), then every parameter checked as nn::load_weights does. Throws
// nn::WeightFileError naming the file and the problem.
[[nodiscard]] inline std::unique_ptr<nn::PolicyValueConv> load_network(
    const std::filesystem::path& path, int width, int height) {
  std::string text;
  nn::PolicyValueConvShape shape = load_network_shape(path, &text);
  shape.width = width;
  shape.height = height;
  gsearch::Rng rng(0);
  auto net = std::make_unique<nn::PolicyValueConv>(shape, rng);
  nn::parse_weights(text, *net, path);
  return net;
}

// The network as gsearch::mcts's prior-value evaluator (mcts.hpp): a batch of positions in,
// their values and the priors of their legal moves (softmax of the logits over the legal
// cells) out. Holds a copy of the network of its own (networks keep buffers: one per thread).
class NetworkEvaluator {
 public:
  explicit NetworkEvaluator(const nn::PolicyValueConv& net)
      : net_(std::make_unique<nn::PolicyValueConv>(net)) {}
  NetworkEvaluator(const NetworkEvaluator& other)
      : net_(std::make_unique<nn::PolicyValueConv>(*other.net_)) {}
  NetworkEvaluator(NetworkEvaluator&&) noexcept = default;
  NetworkEvaluator& operator=(NetworkEvaluator other) noexcept {
    std::swap(net_, other.net_);
    std::swap(input_, other.input_);
    return *this;
  }

  void evaluate_batch(std::span<const Position> states, std::span<float> values,
                      std::span<float> priors) {
    const auto n = static_cast<nn::Index>(states.size());
    if (input_.rows() < n || input_.cols() != net_->inputs())
      input_.resize(std::max<nn::Index>(n, 8), net_->inputs());
    for (nn::Index i = 0; i < n; ++i)
      encode(states[static_cast<std::size_t>(i)],
             std::span<float>(input_.row(i).data(), static_cast<std::size_t>(net_->inputs())));
    const auto out = net_->forward(input_.topRows(n));
    gsearch::MoveListOf<Position> moves;
    for (nn::Index i = 0; i < n; ++i) {
      const Position& pos = states[static_cast<std::size_t>(i)];
      values[static_cast<std::size_t>(i)] = out.values(i, 0);
      pos.legal_moves(moves);
      float top = -INFINITY;
      for (const Move& m : moves)
        top = std::max(top, out.logits(i, action_of(m.cell, pos.width())));
      double total = 0;
      float* p = priors.data() + static_cast<std::size_t>(i) * Position::max_moves;
      for (std::size_t k = 0; k < moves.size(); ++k) {
        p[k] = std::exp(out.logits(i, action_of(moves[k].cell, pos.width())) - top);
        total += p[k];
      }
      for (std::size_t k = 0; k < moves.size(); ++k) p[k] = static_cast<float>(p[k] / total);
    }
  }

 private:
  std::unique_ptr<nn::PolicyValueConv> net_;
  nn::Matrix input_;
};

}  // namespace gomoku::learn
