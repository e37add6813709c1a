// Force-included (-include) into every translation unit of nn_tests, before any Eigen header:
// Eigen's own checks (index bounds, shapes, and allocation while forbidden) stay on in every
// build type and fail the test with an exception instead of being compiled out by NDEBUG.
#pragma once

#include <stdexcept>

#define EIGEN_RUNTIME_NO_MALLOC
#define eigen_assert(x) \
  ((x) ? static_cast<void>(0) : throw std::logic_error("Eigen check failed: " #x))
