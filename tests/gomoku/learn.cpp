// Gomoku's learning pipeline (examples/gomoku/learn): the network's input and the board's
// symmetries, the evaluator, weight files, self-play, and training that resumes exactly.
#include "gomoku/learn/train.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "gomoku/learn/network.hpp"

namespace learn = gomoku::learn;
namespace nn = gsearch::nn;
using gomoku::Position;

namespace {

std::vector<float> planes_of(const Position& p) {
  std::vector<float> out(static_cast<std::size_t>(p.cells() * learn::kPlanes));
  learn::encode(p, out);
  return out;
}

// The position with every stone (and the last move) moved by symmetry s.
Position transformed(const Position& p, int s) {
  std::string rows;
  std::vector<std::string> grid(static_cast<std::size_t>(p.height()),
                                std::string(static_cast<std::size_t>(p.width()), '.'));
  for (int r = 0; r < p.height(); ++r)
    for (int c = 0; c < p.width(); ++c) {
      const int cell = gomoku::cell_at(r, c);
      const char ch = p.stones(gomoku::kBlack).test(cell)   ? 'x'
                      : p.stones(gomoku::kWhite).test(cell) ? 'o'
                                                            : '.';
      const auto [tr, tc] = learn::transform(s, r, c, p.width(), p.height());
      grid[static_cast<std::size_t>(tr)][static_cast<std::size_t>(tc)] = ch;
    }
  for (int r = p.height() - 1; r >= 0; --r) {
    int run = 0;
    for (const char ch : grid[static_cast<std::size_t>(r)]) {
      if (ch == '.') {
        ++run;
        continue;
      }
      if (run) rows += std::to_string(run);
      run = 0;
      rows += ch;
    }
    if (run) rows += std::to_string(run);
    if (r) rows += '/';
  }
  std::string text = rows + (p.to_move() == gomoku::kBlack ? " x " : " o ") + std::to_string(p.k());
  if (const auto last = p.last_move()) {
    const auto [tr, tc] = learn::transform(s, gomoku::row_of(last->cell),
                                           gomoku::col_of(last->cell), p.width(), p.height());
    text += " " + Position::cell_name(gomoku::cell_at(tr, tc));
  }
  return Position::from_text(text);
}

learn::TrainConfig tiny_config() {
  learn::TrainConfig cfg;
  cfg.width = 5;
  cfg.height = 5;
  cfg.k = 4;
  cfg.trunk = {4, 4};
  cfg.playouts = 24;
  cfg.batch = 32;
  cfg.buffer = 400;
  cfg.epochs = 2;
  cfg.eval_every = 2;
  cfg.eval_games = 2;
  cfg.eval_playouts = 20;
  return cfg;
}

}  // namespace

TEST_CASE("the four planes: own stones, the opponent's, the last move, Black to move") {
  Position p = Position::empty(5, 4, 4);
  p.apply(p.parse_move("b2"));  // Black
  p.apply(p.parse_move("e4"));  // White; Black to move
  const auto x = planes_of(p);
  const auto at = [&](const char* cell, int plane) {
    const int c = p.parse_cell(cell);
    return x[static_cast<std::size_t>(learn::action_of(c, 5) * learn::kPlanes + plane)];
  };
  CHECK(at("b2", 0) == 1.0f);
  CHECK(at("e4", 1) == 1.0f);
  CHECK(at("e4", 2) == 1.0f);
  CHECK(at("b2", 2) == 0.0f);
  CHECK(at("a1", 3) == 1.0f);
  float total = 0;
  for (const float v : x) total += v;
  CHECK(total == 1 + 1 + 1 + 20);
  p.apply(p.parse_move("a1"));
  CHECK(planes_of(p)[3] == 0.0f);  // White to move
}

TEST_CASE("symmetries: 8 on a square board, 4 otherwise; planes move with the stones") {
  gsearch::Rng rng(3);
  for (const auto& [w, h] : {std::pair{6, 6}, std::pair{7, 5}}) {
    CAPTURE(w);
    const int n = learn::symmetry_count(w, h);
    CHECK(n == (w == h ? 8 : 4));
    std::set<std::vector<int>> images;
    for (int s = 0; s < n; ++s) {
      std::set<int> seen;
      std::vector<int> image;
      for (int r = 0; r < h; ++r)
        for (int c = 0; c < w; ++c) {
          const auto [tr, tc] = learn::transform(s, r, c, w, h);
          REQUIRE((tr >= 0 && tr < h && tc >= 0 && tc < w));
          seen.insert(tr * w + tc);
          image.push_back(tr * w + tc);
        }
      CHECK(seen.size() == static_cast<std::size_t>(w * h));  // a bijection
      images.insert(image);
    }
    CHECK(images.size() == static_cast<std::size_t>(n));  // all different
    Position p = Position::empty(w, h, 4);
    for (int i = 0; i < 7; ++i) p.apply(p.random_move(rng));
    const auto x = planes_of(p);
    std::vector<float> y(x.size());
    for (int s = 0; s < n; ++s) {
      learn::apply_symmetry(s, w, h, learn::kPlanes, x, y);
      CHECK(y == planes_of(transformed(p, s)));
    }
  }
}

TEST_CASE("the evaluator: priors over the legal moves sum to 1, values in [-1, 1]") {
  gsearch::Rng rng(4);
  nn::PolicyValueConv net(learn::network_shape(6, 6, {8, 8}), rng);
  learn::NetworkEvaluator eval(net);
  std::vector<Position> batch;
  for (int i = 0; i < 3; ++i) {
    Position p = Position::empty(6, 6, 4);
    for (int k = 0; k < 2 * i + 1; ++k) p.apply(p.random_move(rng));
    batch.push_back(p);
  }
  std::vector<float> values(3), priors(3 * Position::max_moves);
  eval.evaluate_batch(batch, values, priors);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(std::abs(values[i]) <= 1.0f);
    double total = 0;
    for (std::size_t k = 0; k < batch[i].count_moves(); ++k)
      total += priors[i * Position::max_moves + k];
    CHECK(total == doctest::Approx(1.0).epsilon(1e-5));
  }
}

TEST_CASE("weight files: load_network reads the shape from the file; bad files are refused") {
  const auto dir = std::filesystem::temp_directory_path() / "gsearch_gomoku_learn_test";
  std::filesystem::create_directories(dir);
  gsearch::Rng rng(5);
  nn::PolicyValueConv net(learn::network_shape(7, 6, {8, 4, 6}), rng);
  nn::save_weights(dir / "net.json", net);
  const auto loaded = learn::load_network(dir / "net.json", 7, 6);
  CHECK(loaded->shape() == net.shape());
  nn::Matrix x = nn::Matrix::Random(2, net.inputs());
  CHECK((nn::Matrix(loaded->forward(x).logits) - nn::Matrix(net.forward(x).logits))
            .cwiseAbs()
            .maxCoeff() == 0.0f);
  // Another board size: the file's heads do not fit.
  CHECK_THROWS_AS((void)learn::load_network(dir / "net.json", 6, 6), nn::WeightFileError);
  CHECK_THROWS_AS((void)learn::load_network(dir / "missing.json", 7, 6), nn::WeightFileError);
  gsearch::write_file_atomically(dir / "other.json",
                                 "{\"format\": \"gsearch-nn-weights\", \"parameters\": []}");
  try {
    (void)learn::load_network(dir / "other.json", 7, 6);
    FAIL("no error");
  } catch (const nn::WeightFileError& e) {
    CHECK(std::string(e.what()).find("no trunk.0.W") != std::string::npos);
  }
  // The az agent refuses a file that is not there, as a spec error, before any game.
  CHECK_THROWS_AS((void)gomoku::make_agent("az:weights=" + (dir / "missing.json").string()),
                  gomoku::SpecError);
  CHECK_THROWS_AS((void)gomoku::make_agent("az:playouts=5"), gomoku::SpecError);
  auto agent = gomoku::make_agent("az:weights=" + (dir / "net.json").string() +
                                  ",playouts=30,window=4,threats=1");
  agent->reset(1);
  Position p = Position::empty(7, 6, 4);
  while (!p.is_terminal()) {
    const auto m = agent->choose(p);
    REQUIRE(gsearch::is_legal(p, m));
    p.apply(m);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("self-play: legal games, visit shares on the candidate set, outcomes") {
  gsearch::Rng rng(6);
  learn::TrainConfig cfg = tiny_config();
  cfg.width = cfg.height = 7;
  cfg.restriction = {.window = 4, .threats = 1};
  nn::PolicyValueConv net(learn::network_shape(7, 7, cfg.trunk), rng);
  const auto game = learn::self_play_game(net, cfg, 11);
  REQUIRE(!game.moves.empty());
  REQUIRE(game.planes.size() == game.moves.size());
  Position p = Position::empty(7, 7, cfg.k);
  for (std::size_t i = 0; i < game.moves.size(); ++i) {
    CHECK(planes_of(p) == game.planes[i]);
    CHECK(game.mover[i] == p.to_move());
    gsearch::MoveListOf<Position> candidates;
    p.legal_moves(candidates);
    gomoku::CandidateFilter{cfg.restriction}(p, candidates);
    std::set<int> allowed;
    for (const auto& m : candidates) allowed.insert(learn::action_of(m.cell, 7));
    double total = 0;
    for (int a = 0; a < 49; ++a) {
      const float share = game.pi[i][static_cast<std::size_t>(a)];
      total += share;
      if (share > 0) CHECK(allowed.contains(a));
    }
    CHECK(total == doctest::Approx(1.0).epsilon(1e-5));
    REQUIRE(gsearch::is_legal(p, game.moves[i]));
    p.apply(game.moves[i]);
  }
  CHECK(p.is_terminal());
  CHECK(game.winner == p.winner());
  // The same seed plays the same game.
  CHECK(learn::self_play_game(net, cfg, 11).moves == game.moves);
}

TEST_CASE(
    "training: the loss falls on a fixed buffer; a resumed run goes on exactly as an unbroken "
    "one") {
  const learn::TrainConfig cfg = tiny_config();
  learn::Trainer straight(cfg);
  for (int b = 0; b < 4; ++b) (void)straight.run_batch();
  learn::Trainer first(cfg);
  for (int b = 0; b < 2; ++b) (void)first.run_batch();
  const std::string blob = first.checkpoint();
  learn::Trainer resumed(cfg);
  resumed.restore(blob, "checkpoint.bin");
  CHECK(resumed.batches() == 2);
  CHECK(resumed.metrics().size() == 2);
  for (int b = 0; b < 2; ++b) (void)resumed.run_batch();
  const auto a = straight.network().parameters(), c = resumed.network().parameters();
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(*a[i].value == *c[i].value);
  REQUIRE(straight.metrics().size() == 4);
  // Batch and game counts go on from the checkpoint (the seconds are wall-clock, not compared).
  CHECK(straight.metrics()[3].batch == resumed.metrics()[3].batch);
  CHECK(straight.metrics()[3].games == resumed.metrics()[3].games);
  CHECK(straight.buffer().size() == resumed.buffer().size());
  CHECK(!std::isnan(straight.metrics()[1].win_ratio));  // evaluated at batch 2
  CHECK(straight.metrics()[1].win_ratio >= 0.0);
  // Another configuration, or a damaged checkpoint, is refused with what is wrong.
  learn::TrainConfig other = cfg;
  other.playouts = 25;
  learn::Trainer different(other);
  try {
    different.restore(blob, "checkpoint.bin");
    FAIL("no error");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) ==
          "checkpoint.bin: holds a run with another configuration (playouts 24, asked for 25); "
          "give the same options "
          "or another --out");
  }
  learn::Trainer damaged(cfg);
  CHECK_THROWS_WITH_AS(damaged.restore(blob.substr(0, blob.size() - 3), "c.bin"),
                       "c.bin: truncated", std::runtime_error);
  CHECK_THROWS_WITH_AS(damaged.restore("hello", "c.bin"), "c.bin: not a gomoku training checkpoint",
                       std::runtime_error);
}
