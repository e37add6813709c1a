#include "gsearch/nn/gat.hpp"

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "support.hpp"

namespace nn = gsearch::nn;
using nn_test::MatD;
using V = std::vector<std::int32_t>;

// The 3-node path 0 — 1 — 2, one head, in = out = 2, W = I, a_dst = [1, 0], a_src = [0, 1],
// no bias, identity output, LeakyReLU slope 0.2, and
//   X = [[1, 0], [0, 1], [1, -3]]   so Z = X, s_dst = Z·a_dst = [1, 0, 1], s_src = [0, 1, -3].
// Node 0 attends to {0, 1}: e00 = lrelu(1 + 0) = 1, e01 = lrelu(1 + 1) = 2;
//   α = softmax(1, 2) = [1/(1+e), e/(1+e)] = [0.2689414, 0.7310586];
//   h'0 = 0.2689414·[1, 0] + 0.7310586·[0, 1] = [0.2689414, 0.7310586].
// Node 1 attends to {1, 0, 2}: e11 = lrelu(0 + 1) = 1, e10 = lrelu(0 + 0) = 0,
//   e12 = lrelu(0 − 3) = 0.2·(−3) = −0.6;  exp: 2.7182818, 1, 0.5488116, sum 4.2670934;
//   α = [0.6370336, 0.2343516, 0.1286149];
//   h'1 = 0.6370336·[0, 1] + 0.2343516·[1, 0] + 0.1286149·[1, −3] = [0.3629664, 0.2511890].
// Node 2 attends to {2, 1}: e22 = lrelu(1 − 3) = −0.4, e21 = lrelu(1 + 1) = 2;
//   exp: 0.6703200, 7.3890561, sum 8.0593761; α = [0.0831727, 0.9168273];
//   h'2 = 0.0831727·[1, −3] + 0.9168273·[0, 1] = [0.0831727, 0.6673092].
TEST_CASE("GAT layer forward on a 3-node graph, against values worked out by hand") {
  gsearch::Rng rng(1);
  nn::GatLayer layer({.in = 2, .out = 2, .heads = 1, .bias = false}, rng);
  layer.weight() = nn::Matrix::Identity(2, 2);
  layer.att_dst() << 1, 0;
  layer.att_src() << 0, 1;
  const auto g = nn::CsrGraph::from_parents(V{0, 0, 1});
  nn::Matrix x(3, 2);
  x << 1, 0, 0, 1, 1, -3;
  const nn::Matrix y = layer.forward(x, g);
  nn::Matrix want(3, 2);
  want << 0.2689414f, 0.7310586f, 0.3629664f, 0.2511890f, 0.0831727f, 0.6673092f;
  CHECK((y - want).cwiseAbs().maxCoeff() < 1e-6f);
  // The coefficients, node by node, self loop first.
  const nn::Matrix att = layer.attention();
  REQUIRE(att.rows() == 4 + 3);
  const float want_att[] = {0.2689414f, 0.7310586f, 0.6370336f, 0.2343516f,
                            0.1286149f, 0.0831727f, 0.9168273f};
  for (int e = 0; e < 7; ++e) CHECK(att(e, 0) == doctest::Approx(want_att[e]).epsilon(1e-5));

  // The first half of a multiplies the aggregating node: swapping the halves changes node 0's
  // scores to e00 = lrelu(0 + 1) = 1, e01 = lrelu(0 + 0) = 0, so α00 = e/(1+e) = 0.7310586.
  std::swap(layer.att_dst(), layer.att_src());
  layer.forward(x, g);
  CHECK(layer.attention()(0, 0) == doctest::Approx(0.7310586).epsilon(1e-5));
}

TEST_CASE("GAT layer: heads concatenated or averaged, bias, activation") {
  gsearch::Rng rng(3);
  const auto g = nn::CsrGraph::from_parents(V{0, 0, 1, 1});
  const nn::Matrix x = nn::Matrix::Random(4, 3);
  nn::GatLayer cat({.in = 3, .out = 2, .heads = 3, .concat = true}, rng);
  nn::GatLayer avg({.in = 3, .out = 2, .heads = 3, .concat = false}, rng);
  avg.weight() = cat.weight();
  avg.att_dst() = cat.att_dst();
  avg.att_src() = cat.att_src();
  avg.bias().setConstant(0.5f);
  const nn::Matrix yc = cat.forward(x, g);
  const nn::Matrix ya = avg.forward(x, g);
  REQUIRE(yc.cols() == 6);
  REQUIRE(ya.cols() == 2);
  const nn::Matrix want = (yc.leftCols(2) + yc.middleCols(2, 2) + yc.rightCols(2)) / 3.0f;
  CHECK((ya.array() - 0.5f - want.array()).abs().maxCoeff() < 1e-6f);
  nn::GatLayer relu({.in = 3, .out = 2, .heads = 3, .activation = nn::Activation::relu()}, rng);
  relu.weight() = cat.weight();
  relu.att_dst() = cat.att_dst();
  relu.att_src() = cat.att_src();
  const nn::Matrix yr = relu.forward(x, g);
  CHECK((yr - yc.cwiseMax(0.0f)).cwiseAbs().maxCoeff() < 1e-6f);
}

TEST_CASE("GAT layer: the head/channel counts compiled for float equal the general code") {
  // float runs code compiled for 4×8, 1×1, 8×8 and 1×8; double always the general code.
  gsearch::Rng rng(21);
  const auto g = nn::CsrGraph::random_tree(30, rng);
  const nn::Index shapes[][2] = {{4, 8}, {1, 1}, {8, 8}, {1, 8}, {3, 5}};
  for (const auto& [heads, out] : shapes) {
    for (const bool concat : {true, false}) {
      CAPTURE(heads);
      CAPTURE(out);
      CAPTURE(concat);
      const nn::GatLayerConfig cfg{.in = 5,
                                   .out = out,
                                   .heads = heads,
                                   .concat = concat,
                                   .activation = nn::Activation::elu()};
      gsearch::Rng r1(5), r2(5);
      nn::GatLayer f(cfg, r1);
      nn::BasicGatLayer<double> d(cfg, r2);
      f.bias().setRandom();
      d.weight() = f.weight().cast<double>();
      d.att_dst() = f.att_dst().cast<double>();
      d.att_src() = f.att_src().cast<double>();
      d.bias() = f.bias().cast<double>();
      const MatD x = nn_test::random_matrix(rng, 30, 5);
      const nn::Matrix yf = f.forward(x.cast<float>(), g);
      const MatD yd = d.forward(x, g);
      CHECK((yf.cast<double>() - yd).cwiseAbs().maxCoeff() < 1e-5);
      CHECK((nn::Matrix(f.attention()).cast<double>() - MatD(d.attention())).cwiseAbs().maxCoeff() <
            1e-5);
      const MatD dy = nn_test::random_matrix(rng, 30, cfg.width());
      const nn::Matrix dxf = f.backward(dy.cast<float>());
      const MatD dxd = d.backward(dy);
      CHECK((dxf.cast<double>() - dxd).cwiseAbs().maxCoeff() < 1e-4);
    }
  }
}

TEST_CASE("GAT layer gradients match finite differences") {
  gsearch::Rng rng(7);
  const auto g = nn::CsrGraph::random_tree(9, rng);
  struct Case {
    const char* name;
    nn::GatLayerConfig cfg;
  };
  const Case cases[] = {
      {"concat, 3 heads, elu",
       {.in = 4, .out = 3, .heads = 3, .activation = nn::Activation::elu()}},
      {"mean, 2 heads, tanh",
       {.in = 4, .out = 2, .heads = 2, .concat = false, .activation = nn::Activation::tanh()}},
      {"1 head, no bias, slope 0.05", {.in = 4, .out = 1, .bias = false, .negative_slope = 0.05}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    nn::BasicGatLayer<double> layer(c.cfg, rng);
    if (c.cfg.bias) layer.bias().setConstant(0.1);
    MatD x = nn_test::random_matrix(rng, g.num_nodes(), 4, -2, 2);
    nn::ParamListT<double> params;
    layer.parameters(params, "gat.");
    const auto r = nn_test::grad_check(
        params, x, [&](const MatD& in) { return MatD(layer.forward(in, g)); },
        [&](const MatD& dy) { return MatD(layer.backward(dy)); }, 9);
    CAPTURE(r.worst);
    CHECK(r.checked > 36);
    CHECK(r.max_error < 1e-6);
  }
}

TEST_CASE("GAT layer on a batch equals the layer on each graph") {
  gsearch::Rng rng(12);
  std::vector<nn::CsrGraph> graphs;
  for (const std::int32_t n : {5, 1, 8, 3}) graphs.push_back(nn::CsrGraph::random_tree(n, rng));
  const nn::GraphBatch batch(graphs);
  const nn::Matrix x = nn::Matrix::Random(batch.graph().num_nodes(), 5);
  nn::GatLayer layer({.in = 5, .out = 4, .heads = 2}, rng);
  const nn::Matrix all = layer.forward(x, batch.graph());
  for (std::int32_t k = 0; k < batch.size(); ++k) {
    const auto [first, count] = batch.nodes_of(k);
    const nn::Matrix one = layer.forward(x.middleRows(first, count), graphs[std::size_t(k)]);
    CHECK((one - all.middleRows(first, count)).cwiseAbs().maxCoeff() < 1e-6f);
  }
}

TEST_CASE("GAT layer: a node without neighbours attends to itself alone") {
  gsearch::Rng rng(2);
  nn::GatLayer layer({.in = 2, .out = 2, .heads = 2, .bias = false}, rng);
  const nn::CsrGraph lonely = nn::CsrGraph::from_edges(1, {});
  const nn::Matrix x = nn::Matrix::Random(1, 2);
  const nn::Matrix y = layer.forward(x, lonely);
  CHECK((y - x * layer.weight()).cwiseAbs().maxCoeff() < 1e-6f);
  CHECK(layer.attention().isOnes());
  CHECK(layer.forward(nn::Matrix(0, 2), nn::CsrGraph{}).rows() == 0);  // empty graph
}

TEST_CASE("GAT layer: the softmax stays finite for scores far beyond exp's range") {
  // Scores of ±1e4 overflow exp() unless each segment's maximum is subtracted first.
  gsearch::Rng rng(4);
  const auto g = nn::CsrGraph::random_tree(12, rng);
  for (const nn::Index heads : {4, 3}) {  // the compiled 4×8 code and the general code
    nn::GatLayer layer({.in = 5, .out = 8, .heads = heads}, rng);
    const nn::Matrix x = 1e4f * nn::Matrix::Random(12, 5);
    const nn::Matrix y = layer.forward(x, g);
    CHECK(y.allFinite());
    const nn::Matrix att = layer.attention();
    CHECK(att.allFinite());
    CHECK(att.minCoeff() >= 0.0f);
    CHECK(att.col(0).sum() == doctest::Approx(12.0).epsilon(1e-4));  // each node's α sum to 1
    CHECK(layer.backward(nn::Matrix::Ones(12, y.cols())).allFinite());
  }
}

TEST_CASE("GAT layer: shape mismatches are refused") {
  gsearch::Rng rng(2);
  nn::GatLayer layer({.in = 5, .out = 4}, rng);
  const auto g = nn::CsrGraph::from_parents(V{0, 0, 0});
  CHECK_THROWS_AS(layer.forward(nn::Matrix::Zero(3, 4), g), std::invalid_argument);
  CHECK_THROWS_AS(layer.forward(nn::Matrix::Zero(4, 5), g), std::invalid_argument);
  CHECK_THROWS_AS(nn::GatLayer({.in = 5, .out = 0}, rng), std::invalid_argument);
  CHECK_THROWS_AS(nn::GatLayer({.negative_slope = -1}, rng), std::invalid_argument);
}

TEST_CASE("GatAe: scores in [0, 1], gradients match finite differences for each refinement") {
  gsearch::Rng rng(5);
  const auto g = nn::CsrGraph::random_tree(7, rng);
  for (const auto refinement :
       {nn::Refinement::kFeatures, nn::Refinement::kScores, nn::Refinement::kNone}) {
    CAPTURE(static_cast<int>(refinement));
    nn::GatAeConfig cfg{.alpha = 0.3, .refinement = refinement};
    const nn::Index in = refinement == nn::Refinement::kScores ? 1 : 5;
    cfg.layers = {{.in = in, .out = 3, .heads = 2, .activation = nn::Activation::elu()},
                  {.in = 6, .out = 1, .heads = 2, .concat = false}};
    nn::BasicGatAe<double> model(cfg, rng);
    MatD x = nn_test::random_matrix(rng, 7, 5);
    const MatD y = model.forward(x, g);
    CHECK(y.minCoeff() > 0.0);
    CHECK(y.maxCoeff() < 1.0);
    const auto r = nn_test::grad_check(
        model.parameters(), x, [&](const MatD& in_x) { return MatD(model.forward(in_x, g)); },
        [&](const MatD& dy) { return MatD(model.backward(dy)); }, 13);
    CAPTURE(r.worst);
    CHECK(r.max_error < 1e-6);
  }
}

TEST_CASE("GatAe: the refinement is X' = α·AE1(X) + (1 − α)·AE2(X); frozen when asked") {
  gsearch::Rng rng(6);
  const auto g = nn::CsrGraph::random_tree(5, rng);
  const nn::Matrix x = nn::Matrix::Random(5, 5);
  nn::GatAe model({.alpha = 0.4, .train_refinement = false}, rng);
  const nn::Matrix y = model.forward(x, g);
  // The same computation by hand: refine, then the layers, then eq. 15.
  const nn::Matrix r =
      0.4f * nn::Matrix(model.ae1().forward(x)) + 0.6f * nn::Matrix(model.ae2().forward(x));
  nn::Matrix h = r;
  for (auto& layer : model.layers()) h = layer.forward(h, g);
  const nn::Matrix want = ((h.array().tanh() + 1.0f) / 2.0f).matrix();
  CHECK((y - want).cwiseAbs().maxCoeff() < 1e-6f);
  // Frozen refinement: backward gives AE1 and AE2 no gradient.
  model.forward(x, g);
  model.zero_grad();
  const nn::Matrix dx = model.backward(nn::Matrix::Ones(5, 1));
  CHECK(dx.isZero());
  for (const auto& p : model.parameters()) {
    CAPTURE(p.name);
    CHECK(p.grad->isZero() == (p.name.rfind("ae", 0) == 0));
  }
}

TEST_CASE("GatAe: names of parameters and refused configurations") {
  gsearch::Rng rng(6);
  nn::GatAe model({}, rng);
  std::vector<std::string> names;
  for (const auto& p : model.parameters()) names.push_back(p.name);
  CHECK(names == std::vector<std::string>{
                     "ae1.enc.W", "ae1.enc.b", "ae1.dec.W", "ae1.dec.b", "ae2.enc.W", "ae2.enc.b",
                     "ae2.dec.W", "ae2.dec.b", "gat.0.W", "gat.0.att_dst", "gat.0.att_src",
                     "gat.0.bias", "gat.1.W", "gat.1.att_dst", "gat.1.att_src", "gat.1.bias"});
  CHECK(model.layers()[0].weight().rows() == 5);
  CHECK(model.layers()[0].weight().cols() == 32);
  nn::GatAeConfig bad;
  bad.layers[1].in = 16;
  try {
    nn::GatAe m(bad, rng);
    FAIL("no exception");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()) == "gat_ae: layer 1 takes 16 channels but receives 32");
  }
  nn::GatAeConfig wide;
  wide.layers[1].out = 2;
  CHECK_THROWS_AS(nn::GatAe(wide, rng), std::invalid_argument);
  CHECK_THROWS_AS(nn::GatAe({.alpha = -0.1}, rng), std::invalid_argument);
  CHECK_THROWS_AS(nn::GatAe({.layers = {}}, rng), std::invalid_argument);
}

TEST_CASE("GatAe: forward and backward allocate nothing once warm") {
  gsearch::Rng rng(6);
  const auto big = nn::CsrGraph::random_tree(64, rng);
  const auto small = nn::CsrGraph::random_tree(20, rng);
  nn::GatAe model({}, rng);
  const nn::Matrix x = nn::Matrix::Random(64, 5);
  const nn::Matrix dy = nn::Matrix::Ones(64, 1);
  model.forward(x, big);
  model.backward(dy);
  const auto before = nn_test::allocations();
  {
    nn_test::NoEigenMalloc guard;
    model.forward(x.topRows(20), small);
    model.backward(dy.topRows(20));
    model.forward(x, big);
    model.backward(dy);
  }
  CHECK(nn_test::allocations() == before);
}
