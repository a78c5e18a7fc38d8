// A shared object named like a plugin that exports no pmg record.
extern "C" int not_a_pmg_plugin() { return 1; }
