#include "core/background.hpp"

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

namespace gds::core {
namespace {

struct Queued {
  Background::Ticket ticket;
  Background::Job job;
  std::shared_ptr<std::atomic<bool>> stop;
};

struct Worker {
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<Queued> queue;
  std::shared_ptr<std::atomic<bool>> running_stop;  // the running job's flag
  Background::Ticket running = 0;
  Background::Ticket submitted = 0, finished = 0;
  bool quit = false;
  std::thread thread;

  void loop() {
    std::unique_lock lock(mutex);
    for (;;) {
      changed.wait(lock, [&] { return quit || !queue.empty(); });
      if (queue.empty()) return;  // quit, and nothing left
      Queued q = std::move(queue.front());
      queue.pop_front();
      running = q.ticket;
      running_stop = q.stop;
      lock.unlock();
      q.job(*q.stop);
      lock.lock();
      running = 0;
      running_stop.reset();
      finished = q.ticket;
      changed.notify_all();
    }
  }
};

// Never destroyed: static destructors (the array registry's stores) may
// still wait on it, and a thread left running at exit must not be destroyed
// joinable.
Worker &worker(Lane lane) {
  static Worker *const w = new Worker[kLanes];
  return w[static_cast<int>(lane)];
}

}  // namespace

Background::Ticket Background::submit(Job job, Lane lane) {
  Worker &w = worker(lane);
  std::lock_guard lock(w.mutex);
  if (!w.thread.joinable()) {
    w.quit = false;
    w.thread = std::thread([&w] { w.loop(); });
  }
  const Ticket t = ++w.submitted;
  w.queue.push_back(Queued{t, std::move(job), std::make_shared<std::atomic<bool>>(false)});
  w.changed.notify_all();
  return t;
}

void Background::wait(Ticket t, Lane lane) {
  if (t == 0) return;
  Worker &w = worker(lane);
  std::unique_lock lock(w.mutex);
  w.changed.wait(lock, [&] { return w.finished >= t; });
}

bool Background::finished(Ticket t, Lane lane) {
  Worker &w = worker(lane);
  std::lock_guard lock(w.mutex);
  return w.finished >= t;
}

void Background::stop_and_wait(Ticket t, Lane lane) {
  if (t == 0) return;
  Worker &w = worker(lane);
  {
    std::lock_guard lock(w.mutex);
    if (w.running == t && w.running_stop) w.running_stop->store(true);
    for (Queued &q : w.queue)
      if (q.ticket == t) q.stop->store(true);
  }
  wait(t, lane);
}

void Background::shutdown() {
  for (int l = 0; l < kLanes; ++l) {
    Worker &w = worker(static_cast<Lane>(l));
    {
      std::lock_guard lock(w.mutex);
      if (!w.thread.joinable()) continue;
      w.quit = true;
      w.changed.notify_all();
    }
    w.thread.join();
  }
}

}  // namespace gds::core
