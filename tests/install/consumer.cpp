// An outside C++ program built only with `pkg-config --cflags --libs gds`.
#include <gds.hpp>

#include <cstdio>
#include <numeric>
#include <vector>

int main(int argc, char **argv) {
  gds::runtime runtime(&argc, &argv);
  bool ok = true;
  {
    auto a = gds::array<double>::alloc({10, 10});
    std::vector<double> v(100), out(100);
    std::iota(v.begin(), v.end(), 0.0);
    if (gds::runtime::rank() == 0) a.put(v, gds::box({0, 0}, {9, 9}));
    a.wait();
    a.fence();
    a.get(out, gds::box({0, 0}, {9, 9}));
    a.wait();
    ok = out == v;
    a.fence();
  }
  if (gds::runtime::rank() == 0) std::printf("consumer (C++, pkg-config): %s\n", ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
