// SPDX-License-Identifier: MIT
// tests/workloads/clang_input.cc - a small C++ file whose compile runs
// clang++ through libLLVM and libclang-cpp for a few seconds (t0712, t0815).
// Not built: the tests compile it.
#include <algorithm>
#include <iostream>
#include <map>
#include <regex>
#include <string>
#include <vector>
std::map<std::string, int> m;
int main(int c, char **v)
{
	std::regex r(v[0]);
	std::vector<std::string> s{ "a", "b" };
	std::sort(s.begin(), s.end());
	for (auto &x : s)
		m[x] = std::regex_match(x, r);
	std::cout << m.size() << c;
}
