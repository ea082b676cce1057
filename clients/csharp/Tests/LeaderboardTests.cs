using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using UnityEngine;

namespace Podium.Tests
{
    /// <summary>Leaderboards: scopes, pages, around, entry, history, recurring periods and archives.</summary>
    internal static class LeaderboardTests
    {
        public static void Register(List<TestCase> tests)
        {
            tests.Add(new TestCase
            {
                Name = "leaderboards: the docs' calls on dash (submit, week, friends, around, today's entry)",
                NeedsServer = true, Body = World.Test(DocsCalls),
            });
            tests.Add(new TestCase
            {
                Name = "leaderboards: on a board of its own, scopes, cursor and offset pages, around, entry, context, history",
                NeedsServer = true, Body = World.Test(OwnBoard),
            });
            tests.Add(new TestCase
            {
                Name = "leaderboards: a recurring board's ended period and an operator's archive",
                NeedsServer = true, Body = World.Test(PeriodsAndArchives),
            });
        }

        private static async Task DocsCalls(World world)
        {
            var podium = await world.PlayerAsync("lea");
            // docs:begin leaderboards
            var receipt = await podium.SubmitScoreAsync("dash", "com.example.dash.highscore", 1200);
            Debug.Log("rank " + receipt.Entry.Rank + (receipt.Improved ? ", a new best" : ""));

            var week = await podium.GetTopAsync("dash", "com.example.dash.highscore", LeaderboardScope.Week, limit: 10);
            foreach (var entry in week.Entries)
                Debug.Log(entry.Rank + ". " + entry.DisplayName + ": " + entry.Value);
            var friends = await podium.GetFriendsTopAsync("dash", "com.example.dash.highscore");
            var nearMe = await podium.GetAroundAsync("dash", "com.example.dash.highscore", radius: 2);
            var today = await podium.GetEntryAsync("dash", "com.example.dash.highscore", LeaderboardScope.Today);
            // docs:end leaderboards
            Check.That(receipt.Improved && receipt.PreviousValue == null, "a first score improves");
            Check.Sequence(new[] { "today", "week", "allTime" }, receipt.ScopesBeaten, "a first score beats every scope");
            Check.Equal<long?>(1200, receipt.SubmittedValue, "submitted value");
            Check.Equal("week", week.Scope, "the week's page");
            Check.That(week.Entries.Count <= 10 && week.Total >= 1, "at most the limit");
            Check.Sequence(new[] { podium.PlayerId }, friends.Entries.Select(e => e.PlayerId), "no friends: only the player");
            Check.That(nearMe.Entries.Any(e => e.PlayerId == podium.PlayerId && e.Value == 1200), "the player is in the window around them");
            Check.Equal(1200L, Check.NotNull(today, "today's entry").Value, "today's entry");
            Check.Equal("lea", today.DisplayName, "the display name");
        }

        private static async Task<string> DefineGameAsync(string board)
        {
            var game = Stack.Unique("cs-game");
            await Stack.AdminAsync("leaderboard.admin.define", game, new Dictionary<string, object>
            {
                { "definition", new Dictionary<string, object>
                    {
                        { "id", board }, { "title", "Points" }, { "sortOrder", "higherIsBetter" }, { "submitOperator", "best" },
                        { "format", "integer" }, { "minimum", 0 },
                    }
                },
            });
            return game;
        }

        private static async Task OwnBoard(World world)
        {
            const string board = "cs.points";
            var game = await DefineGameAsync(board);
            var one = await world.PlayerAsync("one");
            var two = await world.PlayerAsync("two");
            var three = await world.PlayerAsync("three");
            var none = await world.PlayerAsync("none");
            var metadata = new Dictionary<string, object> { { "level", "1-2" }, { "lives", 3 } };
            await one.SubmitScoreAsync(game, board, 300, context: 9, metadata: metadata);
            await two.SubmitScoreAsync(game, board, 200);
            await three.SubmitScoreAsync(game, board, 100);

            var boards = await one.GetLeaderboardsAsync(game);
            Check.Equal(board, boards.Single().Id, "the game's one board");
            Check.That(boards[0].Recurrence == null && !boards[0].ServerOnly && boards[0].Minimum == 0, "its definition");

            var top = await one.GetTopAsync(game, board, limit: 2);
            Check.Sequence(new[] { one.PlayerId, two.PlayerId }, top.Entries.Select(e => e.PlayerId), "the first page");
            Check.Equal(3L, top.Total, "three entries");
            Check.Equal(9L, top.Entries[0].Context.Value, "the context");
            Check.Equal("1-2", top.Entries[0].Metadata["level"], "the metadata");
            Check.Equal<object>(3L, top.Entries[0].Metadata["lives"], "the metadata's number");
            var next = await one.GetTopAsync(game, board, limit: 2, cursor: Check.NotNull(top.NextCursor, "a cursor to the next page"));
            Check.Sequence(new[] { 3L }, next.Entries.Select(e => e.Rank), "the next page");
            Check.Equal(null, next.NextCursor, "the last page has no cursor");
            var offset = await one.GetTopAsync(game, board, offset: 1);
            Check.Sequence(new[] { 200L, 100L }, offset.Entries.Select(e => e.Value), "from offset 1");
            foreach (var scope in new[] { LeaderboardScope.Today, LeaderboardScope.Week, LeaderboardScope.AllTime })
            {
                var page = await two.GetTopAsync(game, board, scope);
                Check.Equal(scope, page.Scope, "the scope asked for");
                Check.Equal(3L, page.Total, scope + " has the three scores of today");
            }
            var badScope = await Check.FailsAsync(ErrorCodes.InvalidField, () => two.GetTopAsync(game, board, "month"), "a scope that is not one");
            Check.Equal("payload.scope", badScope.Field, "the scope is to blame");

            var around = await three.GetAroundAsync(game, board, radius: 1);
            Check.Sequence(new[] { 1L, 2L, 3L }, around.Entries.Select(e => e.Rank), "the window keeps its size at the bottom");
            var twosEntry = await two.GetEntryAsync(game, board, LeaderboardScope.Week);
            Check.That(twosEntry.Rank == 2 && twosEntry.Value == 200, "two's entry this week");
            Check.Equal(null, await none.GetEntryAsync(game, board), "no entry: null");
            Check.Equal(0, (await none.GetAroundAsync(game, board)).Entries.Count, "no entry: nobody around");

            var lower = await one.SubmitScoreAsync(game, board, 250);
            Check.That(!lower.Improved && lower.PreviousValue == 300 && lower.ScopesBeaten.Count == 0, "a lower score changes nothing");
            Check.Equal(300L, lower.Entry.Value, "the entry stays");
            var history = await one.GetScoreHistoryAsync(game, board);
            Check.Sequence(new[] { 300L, 250L }, history.Scores.Select(s => s.Value), "the history, best first");
            Check.Equal(one.PlayerId, history.PlayerId, "one's history");
            var bounds = await Check.FailsAsync(ErrorCodes.ScoreOutOfBounds, () => one.SubmitScoreAsync(game, board, -1), "below the minimum");
            Check.Equal<int?>(400, bounds.Status, "score_out_of_bounds is 400");
        }

        private static async Task PeriodsAndArchives(World world)
        {
            var podium = await world.PlayerAsync("per");
            // docs:begin recurring
            var boards = await podium.GetLeaderboardsAsync("dash");
            var weekly = boards.First(b => b.Id == "com.example.dash.weekly");
            var lastWeek = weekly.Recurrence.CurrentPeriod() - 1;
            var lastWeeksTop = await podium.GetTopAsync("dash", weekly.Id, period: lastWeek);
            var archives = await podium.GetArchivesAsync("dash", "com.example.dash.highscore");
            // docs:end recurring
            Check.Equal(604800000L, weekly.Recurrence.DurationMilliseconds, "a week");
            Check.Equal("period:" + lastWeek, lastWeeksTop.Scope, "the ended period's page");
            Check.That(archives != null, "archives listed");
            var current = await Check.FailsAsync(ErrorCodes.InvalidField,
                () => podium.GetTopAsync("dash", weekly.Id, period: lastWeek + 1), "the current period is not ended");
            Check.Equal("payload.period", current.Field, "the period is to blame");
            await Check.FailsAsync(ErrorCodes.InvalidField,
                () => podium.GetTopAsync("dash", "com.example.dash.highscore", period: 0), "a period of a board that does not recur");

            const string board = "cs.points";
            var game = await DefineGameAsync(board);
            await podium.SubmitScoreAsync(game, board, 40);
            Check.Equal(0, (await podium.GetArchivesAsync(game, board)).Count, "no archive before a reset");
            var reset = await Stack.AdminAsync("leaderboard.admin.reset", game, new Dictionary<string, object> { { "boardId", board } });
            Check.Equal<object>(1L, reset["archive"], "the reset made archive 1");
            var archive = (await podium.GetArchivesAsync(game, board)).Single();
            Check.That(archive.Archive == 1 && archive.Entries == 1 && archive.BoardId == board, "archive 1 with one entry");
            var archived = await podium.GetTopAsync(game, board, archive: archive.Archive);
            Check.Equal("archive:1", archived.Scope, "the archive's page");
            Check.Sequence(new[] { 40L }, archived.Entries.Select(e => e.Value), "the archived standings");
            Check.Equal(0L, (await podium.GetTopAsync(game, board)).Total, "the board starts empty");
            var unknown = await Check.FailsAsync(ErrorCodes.InvalidField, () => podium.GetTopAsync(game, board, archive: 2), "an archive that is not there");
            Check.Equal("payload.archive", unknown.Field, "the archive is to blame");
        }
    }
}
