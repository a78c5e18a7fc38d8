// The plugin's only export: the Seatbelt backend, wrapped for the host by PMG_EXPORT_BACKEND.
#include "pmg/plugin.hpp"
#include "seatbelt_backend.hpp"

using pmg::seatbelt::SeatbeltBackend;
PMG_EXPORT_BACKEND(SeatbeltBackend, "0.1.0")
