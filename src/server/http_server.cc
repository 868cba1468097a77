// HttpServer on Boost.Beast/Asio (src/server/http_server.h): accepting connections, each loop's
// deadline sweep, start and shutdown. A connection's reads and writes are class Session
// (http_session.h); the handler's Responder is http_responder.cc.
#include "server/http_session.h"

namespace rap::server {

void HttpServer::Impl::Accept() {
  IoLoop* loop = loops[next_loop++ % loops.size()].get();
  acceptor->async_accept(loop->io.get_executor(), [this, loop](error_code ec, Socket socket) {
    if (ec || shutting_down.load()) return;  // acceptor closed
    if (connections.load() >= options.max_connections) {
      error_code ignored;
      socket.close(ignored);
    } else {
      ++connections;
      std::shared_ptr<Session> s;
      {
        std::lock_guard<std::mutex> lock(sessions_mu);
        const uint64_t id = next_session++;
        s = std::make_shared<Session>(this, loop, std::move(socket), id);
        sessions[id] = s;
      }
      s->Start();
    }
    Accept();
  });
}

void HttpServer::Impl::ArmSweep(IoLoop* loop) {
  loop->sweep.expires_after(sweep_period);
  loop->sweep.async_wait([this, loop](error_code ec) {
    if (ec || io_stopped.load()) return;
    const Clock::time_point now = Clock::now();
    // Drops destroyed and closed connections; CheckDeadline closes those past their deadline.
    std::erase_if(loop->sessions, [now](const std::weak_ptr<Session>& w) {
      const std::shared_ptr<Session> s = w.lock();
      if (!s) return true;
      s->CheckDeadline(now);
      return s->closed();
    });
    ArmSweep(loop);
  });
}

void HttpServer::Impl::Shutdown(double grace_s) {
  {
    std::lock_guard<std::mutex> lock(shutdown_mu);
    if (shut_down) return;
    shut_down = true;
  }
  shutting_down.store(true);
  asio::post(loops[0]->io, [this] {
    error_code ec;
    acceptor->close(ec);
    std::vector<std::shared_ptr<Session>> live;
    {
      std::lock_guard<std::mutex> lock(sessions_mu);
      for (auto& [id, w] : sessions) {
        if (auto s = w.lock()) live.push_back(std::move(s));
      }
    }
    for (auto& s : live) s->CloseIfReading();
  });
  const auto deadline = std::chrono::steady_clock::now() + Seconds(std::max(0.0, grace_s));
  {
    std::unique_lock<std::mutex> lock(mu);
    idle_cv.wait_until(lock, deadline, [&] { return in_flight.load() == 0; });
  }
  // Let the last responses reach their clients and their connections close.
  while (connections.load() > 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(kPoll);
  io_stopped.store(true);
  for (auto& loop : loops) {
    loop->work.reset();
    loop->io.stop();
  }
  for (auto& loop : loops) {
    if (loop->thread.joinable()) loop->thread.join();
  }
  io_joined.store(true);
  workers.Stop();
}

Result<std::unique_ptr<HttpServer>> HttpServer::Start(const HttpServerOptions& options, Handler handler,
                                                      Observer observer) {
  auto impl = std::make_shared<Impl>();
  impl->options = options;
  impl->handler = std::move(handler);
  impl->observer = std::move(observer);
  error_code ec;
  const auto address = asio::ip::make_address(options.host, ec);
  if (ec) return Status::InvalidArgument("listen address '" + options.host + "': " + ec.message());
  const tcp::endpoint ep(address, options.port);
  for (int i = 0; i < std::max(1, options.io_threads); ++i) impl->loops.push_back(std::make_unique<IoLoop>());
  impl->acceptor = std::make_unique<asio::basic_socket_acceptor<tcp, Executor>>(impl->loops[0]->io.get_executor());
  auto& acceptor = *impl->acceptor;
  acceptor.open(ep.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(ep, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return Status::IOError(fmt::format("listen on {}:{}: {}", options.host, options.port, ec.message()));
  impl->port = acceptor.local_endpoint().port();
  // Deadlines are checked about 8 times per shortest timeout (at most every 100 ms, at least every
  // 5 ms), so a connection is closed within an eighth of its timeout after it passed.
  const double shortest = std::min({options.read_timeout_s, options.idle_timeout_s, options.write_timeout_s});
  impl->sweep_period = Seconds(std::clamp(shortest / 8, 0.005, 0.1));
  for (auto& loop : impl->loops) {
    loop->work.emplace(loop->io.get_executor());
    impl->ArmSweep(loop.get());
  }
  impl->Accept();
  for (auto& loop : impl->loops) {
    loop->thread = std::thread([l = loop.get()] {
      UseOwnMallocArena();  // the rap binary's jemalloc: no arena lock shared with the other loops
      l->io.run();
    });
  }
  impl->workers.Start(options.workers, options.worker_nice);
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::~HttpServer() { Shutdown(0); }
uint16_t HttpServer::port() const { return impl_->port; }
int HttpServer::in_flight() const { return impl_->in_flight.load(); }
int HttpServer::connections() const { return impl_->connections.load(); }
uint64_t HttpServer::io_thread_requests() const { return impl_->io_thread_requests.load(); }
void HttpServer::Shutdown(double grace_s) { impl_->Shutdown(grace_s); }

}  // namespace rap::server
